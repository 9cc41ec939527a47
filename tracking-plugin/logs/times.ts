// Each line's time, from the node that wrote it (logs/rank-R.out.ts), never from the file server's
// clock: a line .out.ts has no valid time for takes the time of the rank's line before it, else the
// rank's start (logs/rank-R.json started_at), else ingestion's own clock. Ingestion keeps the last
// time in its cursor, so a restart stamps the next line as a reading of the whole log does.
import { readRankFacts } from '../../core';
import { tsToMs, type LineBatch } from './lines';

/** The times of the first `take` lines: line i's is .out.ts line `skip + i` when it holds a time,
 *  else the time before it, starting from `last`. */
export function lineTimes(ts: LineBatch, skip: number, take: number, last: number): number[] {
  const times: number[] = [];
  for (let i = 0; i < take; i++) {
    const t = skip + i < ts.length ? tsToMs(ts.text(skip + i)) : undefined;
    if (t !== undefined) last = t;
    times.push(last);
  }
  return times;
}

/** The time of a rank's lines before any line time is known: its start, else ingestion's clock. */
export function firstFallback(runDir: string, rank: number, now: number): number {
  const started = readRankFacts(runDir, rank)?.started_at;
  return typeof started === 'number' && Number.isFinite(started) ? Math.round(started * 1000) : now;
}
