// At most N calls in flight across every caller. MLflow's sqlite store serialises writes, and a
// server with a small connection pool answers 400 "QueuePool limit" when many requests wait at once.
export type Gate = <T>(task: () => Promise<T>) => Promise<T>;

export interface Semaphore {
  (): Promise<() => void>;
  /** A new number of tickets: more are handed out at once; with fewer, none until enough return. */
  resize(max: number): void;
}

/** N tickets, handed out in the order asked for; `acquire` resolves with the ticket's release. */
export function semaphore(max: number): Semaphore {
  let active = 0;
  const queue: Array<() => void> = [];
  const next = () => {
    while (active < max && queue.length > 0) {
      active++;
      queue.shift()!();
    }
  };
  const release = () => {
    active--;
    next();
  };
  const acquire = () =>
    new Promise<() => void>((resolve) => {
      let released = false;
      queue.push(() =>
        resolve(() => {
          if (released) return; // a second release would hand out a ticket that does not exist
          released = true;
          release();
        }),
      );
      next();
    });
  return Object.assign(acquire, {
    resize(n: number) {
      max = n;
      next();
    },
  });
}

/** A gate of at most `max` calls in flight; `resize` changes the number (a sync's pace, pace.ts). */
export function limiter(max: number): Gate & { resize(max: number): void } {
  const acquire = semaphore(max);
  const gate: Gate = async <T>(task: () => Promise<T>) => {
    const release = await acquire();
    try {
      return await task();
    } finally {
      release();
    }
  };
  return Object.assign(gate, { resize: (n: number) => acquire.resize(n) });
}
