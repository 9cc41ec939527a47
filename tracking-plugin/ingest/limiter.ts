// At most N calls in flight across every caller. MLflow's sqlite store serialises writes, and a
// server with a small connection pool answers 400 "QueuePool limit" when many requests wait at once.
export type Gate = <T>(task: () => Promise<T>) => Promise<T>;

/** N tickets, handed out in the order asked for; `acquire` resolves with the ticket's release. */
export function semaphore(max: number): () => Promise<() => void> {
  let active = 0;
  const queue: Array<() => void> = [];
  const next = () => {
    while (active < max && queue.length > 0) {
      active++;
      queue.shift()!();
    }
  };
  return () =>
    new Promise<() => void>((resolve) => {
      let released = false;
      queue.push(() =>
        resolve(() => {
          if (released) return; // a second release would hand out a ticket that does not exist
          released = true;
          active--;
          next();
        }),
      );
      next();
    });
}

/** A gate of at most `max` calls in flight. */
export function limiter(max: number): Gate {
  const acquire = semaphore(max);
  return async <T>(task: () => Promise<T>) => {
    const release = await acquire();
    try {
      return await task();
    } finally {
      release();
    }
  };
}
