// The lines of several ranks' logs in time order: everything now, the last N, and what each poll adds.
import { listRanks, runPaths } from '../../core';
import { compareLines, type LogLine, type LogStream, mergeByTime, Ring } from './line';
import { LineSource } from './line-source';

/** Which logs: given ranks (`--rank`), else every rank that has a log (found again on each poll). */
export interface LogSelection {
  ranks?: number[];
  streams: LogStream[];
}

export class MergedLogs {
  private readonly sources = new Map<string, LineSource>();

  constructor(
    private readonly runDir: string,
    private readonly sel: LogSelection,
    /** Told once each time a log is found truncated or replaced (read again from its start). */
    private readonly onRestart?: (file: string) => void,
  ) {}

  /** Sources for ranks that have started writing since the last look. */
  private discover(): LineSource[] {
    const p = runPaths(this.runDir);
    for (const rank of this.sel.ranks ?? listRanks(this.runDir))
      for (const stream of this.sel.streams) {
        const key = `${rank}:${stream}`;
        if (this.sources.has(key)) continue;
        const [file, times] =
          stream === 'stdout'
            ? [p.rankOut(rank), p.rankOutTimes(rank)]
            : [p.rankErr(rank), p.rankErrTimes(rank)];
        this.sources.set(key, new LineSource(this.runDir, rank, stream, file, times, this.onRestart));
      }
    return [...this.sources.values()];
  }

  /** The last `n` lines now (in time order); what comes before them is read and dropped. */
  async tail(n: number, final: boolean): Promise<LogLine[]> {
    const rings: LogLine[][] = [];
    for (const s of this.discover()) {
      const ring = new Ring<LogLine>(n);
      for (let l = await s.next(final); l; l = await s.next(final)) ring.push(l);
      rings.push(ring.toArray());
    }
    const merged = mergeByTime(rings);
    return merged.slice(Math.max(0, merged.length - n));
  }

  /** Every line available now, in time order (a k-way merge: memory stays one line per log). */
  async drain(final: boolean, emit: (line: LogLine) => void | Promise<void>): Promise<number> {
    const heads: { line: LogLine; src: LineSource }[] = [];
    for (const src of this.discover()) {
      const line = await src.next(final);
      if (line) heads.push({ line, src });
    }
    let count = 0;
    while (heads.length) {
      let best = 0;
      for (let i = 1; i < heads.length; i++) if (compareLines(heads[i].line, heads[best].line) < 0) best = i;
      const { line, src } = heads[best];
      await emit(line);
      count++;
      const next = await src.next(final);
      if (next) heads[best] = { line: next, src };
      else heads.splice(best, 1);
    }
    return count;
  }
}
