// Saving the send state (cursors, run ids) while requests go on. One write at a time, each of the
// state as it is when the write starts, so every save asked for before then is answered by it. A
// write is atomic with two fsyncs and a rename (disk work that shares the host), so the saves
// of answers that keep coming are grouped: at most one write per gap. A point answered but not yet
// saved is sent again after a crash, identical (its timestamp is fixed in the spool), and MLflow
// drops the exact duplicate: the gap bounds how much is sent again, not what MLflow holds.

export class GroupedSaver {
  /** The write not yet started (it answers every save asked for until it starts). */
  private queued: Promise<void> | undefined;
  /** The last write asked for: the next one starts after it. */
  private last: Promise<void> = Promise.resolve();
  /** When the last write started (clock ms). */
  private startedAt = -Infinity;
  /** A grouped save waiting for its gap to pass. */
  private waiting: { timer: NodeJS.Timeout; resolve: (p: Promise<void>) => void } | undefined;
  private waited: Promise<void> | undefined;

  constructor(
    private readonly write: () => Promise<void>,
    readonly gapMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** A write as soon as the one in progress (if any) is done. */
  now(): Promise<void> {
    if (this.waiting) {
      // a grouped save waiting for its gap is answered by this write
      clearTimeout(this.waiting.timer);
      const { resolve } = this.waiting;
      this.waiting = this.waited = undefined;
      const p = this.queue();
      resolve(p);
      return p;
    }
    return this.queue();
  }

  /** A write no sooner than `gapMs` after the last one started (more answers are on their way
   *  and join it); at once if that much time has passed or a write is queued anyway. */
  grouped(): Promise<void> {
    if (this.waited) return this.waited;
    const wait = this.startedAt + this.gapMs - this.clock();
    if (wait <= 0 || this.queued) return this.queue();
    this.waited = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = this.waited = undefined;
        resolve(this.queue());
      }, wait);
      this.waiting = { timer, resolve };
    });
    return this.waited;
  }

  private queue(): Promise<void> {
    this.queued ??= this.last
      .catch(() => undefined) // a failed write was answered to its own callers
      .then(() => {
        this.queued = undefined;
        this.startedAt = this.clock();
        return this.write();
      });
    this.last = this.queued;
    return this.queued;
  }
}
