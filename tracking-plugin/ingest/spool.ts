// The spool stage for one rank: new complete lines of its log -> points with their timestamps fixed
// from .out.ts -> spool text. The caller appends the text durably and then commits the returned
// cursor, in that order. A line .out.ts has no (valid) time for takes the rank's last known line
// time, else the rank's start (logs/rank-R.json), else ingestion's clock: never the file server's
// clock (a log's mtime), which can be off by any amount.
import { logStat, runPaths } from '../../core';
import { PointColumns } from '../logs/columns';
import { extractPoints } from '../logs/extract';
import { firstFallback, lineTimes } from '../logs/times';
import { readBatch } from '../logs/reader';
import type { LineParser } from '../parsers';
import { encodeRecords } from './records';
import type { RankCursor } from './state';

export interface SpoolStep {
  cursor: RankCursor;
  /** The new points: the columns passed in, filled anew. */
  points: PointColumns;
  data: string;
  /** Complete lines held back because .out.ts has no time for them yet. */
  held: number;
  /** The read stopped before the log's end: call again for the rest. */
  more: boolean;
}

export interface SpoolOptions {
  /** The job ended: lines still without a time in .out.ts get the fallback time now. */
  final: boolean;
  /** Ingestion's clock (ms). */
  now: number;
  /** How long lines may wait for their times in .out.ts, by ingestion's clock, before the fallback
   *  time is used. */
  graceMs: number;
  /** When ingestion first saw these lines waiting (ingestion's clock); default now. */
  waitingSince?: number;
  /** Use the fallback time now for lines .out.ts lacks (a one-shot ingest that waited already). */
  noWait?: boolean;
}

export async function spoolRank(
  runDir: string,
  rank: number,
  parser: LineParser,
  cur: RankCursor,
  opts: SpoolOptions,
  into = new PointColumns(),
): Promise<SpoolStep> {
  into.clear(); // reused from call to call: its arrays stay allocated
  const paths = runPaths(runDir);
  const outFile = paths.rankOut(rank);
  const st = logStat(runDir, outFile);
  const none = { points: into, data: '', held: 0, more: false };
  if (!st) return { cursor: cur, ...none };
  // The log shrank below what was read (truncated, e.g. logrotate's copytruncate): what is in it
  // now was written after the cut, so read it from the start. Counted; the caller warns.
  if (st.size < cur.out) {
    const { scan: _scan, ...rest } = cur;
    cur = {
      ...rest,
      out: 0,
      truncated: (cur.truncated ?? 0) + 1,
      ...tsShrank(runDir, paths.rankOutTimes(rank), cur),
    };
  }
  const lines = await readBatch(runDir, outFile, cur.out, opts.final, cur.scan ?? 0);
  if (lines.length === 0) {
    // a line longer than a read, still without its newline: remember how far it was looked at
    const scanned = lines.scanned > (cur.scan ?? 0) ? { ...cur, scan: lines.scanned } : cur;
    return { cursor: scanned, ...none };
  }

  const tsAll = await readBatch(runDir, paths.rankOutTimes(rank), cur.ts);
  const skip = Math.max(0, cur.lines - cur.tsLines); // lines that already took the fallback time
  const timed = Math.max(0, Math.min(tsAll.length - skip, lines.length));
  const stale = opts.now - (opts.waitingSince ?? opts.now) > opts.graceMs;
  const take = opts.final || stale || opts.noWait ? lines.length : timed;
  if (take === 0) return { cursor: cur, ...none, held: lines.length };
  const times = lineTimes(tsAll, skip, take, cur.lastMs ?? firstFallback(runDir, rank, opts.now));

  const counters = { ...cur.counters };
  const ex = extractPoints(parser, lines, times, counters, into, take);
  const data = encodeRecords(into);
  const tsUsed = Math.min(tsAll.length, skip + take);
  const { scan: _scan, ...rest } = cur; // the long line it tracked is read now
  const cut = lines.cutBefore(take);
  const cursor: RankCursor = {
    ...rest, // what other followers keep in the rank's cursor (its system metrics cursor) stays
    out: lines.end(take - 1),
    lines: cur.lines + take,
    ts: tsUsed > 0 ? tsAll.end(tsUsed - 1) : cur.ts,
    tsLines: cur.tsLines + tsUsed,
    spool: cur.spool + Buffer.byteLength(data),
    points: cur.points + ex.added,
    skipped: cur.skipped + ex.skipped,
    counters,
    lastMs: times[take - 1],
    ...((cur.host ?? ex.host) ? { host: (cur.host ?? ex.host) as string } : {}),
    ...(cur.truncated ? { truncated: cur.truncated } : {}),
    ...(cut + (cur.cut ?? 0) > 0 ? { cut: cut + (cur.cut ?? 0) } : {}),
  };
  return {
    cursor,
    points: into,
    data,
    held: lines.length - take,
    more: lines.more && take === lines.length,
  };
}

/** When .out.ts was cut too, its times start again with the lines after the cut. */
function tsShrank(runDir: string, file: string, cur: RankCursor): Partial<RankCursor> {
  const size = logStat(runDir, file)?.size ?? 0;
  return size < cur.ts ? { ts: 0, tsLines: cur.lines } : {};
}
