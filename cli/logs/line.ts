// A line of a rank's log with the time it was written, and the order of merged lines (pure).

export type LogStream = 'stdout' | 'stderr';

export interface LogLine {
  rank: number;
  stream: LogStream;
  /** Unix seconds (microseconds) from logs/rank-R.out.ts; null where the line has no time yet. */
  time: number | null;
  /** Where the line sorts: its time, else the time of the rank's line before it. */
  sortTime: number;
  /** The line's bytes as written, with its newline (none for a last line taken without one). */
  bytes: Buffer;
}

/** Time order; on equal times rank, then stdout before stderr (a stable, predictable merge). */
export function compareLines(a: LogLine, b: LogLine): number {
  return (
    a.sortTime - b.sortTime || a.rank - b.rank || (a.stream === b.stream ? 0 : a.stream === 'stdout' ? -1 : 1)
  );
}

/** Merge lists each already in time order (one per rank and stream) into one, in time order. */
export function mergeByTime(lists: readonly (readonly LogLine[])[]): LogLine[] {
  const all = lists.flatMap((l, i) => l.map((line, j) => ({ line, i, j })));
  all.sort((x, y) => compareLines(x.line, y.line) || x.i - y.i || x.j - y.j);
  return all.map((x) => x.line);
}

/** The last `n` items of a sequence of any length, in order (a circular buffer). */
export class Ring<T> {
  private readonly items: T[] = [];
  private start = 0;
  constructor(private readonly n: number) {}
  push(item: T): void {
    if (this.n <= 0) return;
    if (this.items.length < this.n) this.items.push(item);
    else {
      this.items[this.start] = item;
      this.start = (this.start + 1) % this.n;
    }
  }
  toArray(): T[] {
    return [...this.items.slice(this.start), ...this.items.slice(0, this.start)];
  }
}
