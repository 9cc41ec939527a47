// Stage 1, no network: new complete lines of a rank's log -> points with their timestamps fixed
// from .out.ts (else the log's mtime, once .out.ts is missing or stale) -> spool text. The caller
// appends the text durably and then commits the returned cursor, in that order.
import { logStat, readLogRange, runPaths } from '../../core';
import { extractPoints } from '../logs/extract';
import { LineBatch, tsToMs, type LogLine } from '../logs/lines';
import type { LineParser } from '../parsers';
import type { MetricPoint } from '../types';
import { encodeRecords } from './records';
import type { RankCursor } from './state';

const CHUNK = 32 << 20;

export interface SpoolStep {
  cursor: RankCursor;
  points: MetricPoint[];
  data: string;
  /** Complete lines held back because .out.ts has no time for them yet. */
  held: number;
}

export interface SpoolOptions {
  /** The job ended: lines still without a time in .out.ts get the fallback time now. */
  final: boolean;
  now: number;
  /** How long .out.ts may lag behind .out before the fallback time is used. */
  graceMs: number;
  /** Use the fallback time now for lines .out.ts lacks (a one-shot ingest that waited already). */
  noWait?: boolean;
}

/** Whole lines of `file` from byte `from` (a chunk at a time; a longer first line widens the chunk).
 *  `final`: the writer is gone, so a last line without its newline is taken as it is. */
export async function readLines(
  runDir: string,
  file: string,
  from: number,
  final = false,
): Promise<LogLine[]> {
  return (await readBatch(runDir, file, from, final)).toLogLines();
}

/** readLines' lines, their texts not cut yet (see LineBatch). */
export async function readBatch(
  runDir: string,
  file: string,
  from: number,
  final = false,
): Promise<LineBatch> {
  for (let max = CHUNK; ; max *= 4) {
    const buf = await readLogRange(runDir, file, from, max);
    const lines = new LineBatch(buf, from, final && buf.length < max);
    if (lines.length > 0 || buf.length < max) return lines;
  }
}

export async function spoolRank(
  runDir: string,
  rank: number,
  parser: LineParser,
  cur: RankCursor,
  opts: SpoolOptions,
): Promise<SpoolStep> {
  const paths = runPaths(runDir);
  const outFile = paths.rankOut(rank);
  const st = logStat(runDir, outFile);
  if (!st) return { cursor: cur, points: [], data: '', held: 0 };
  const mtime = Math.floor(st.mtimeMs);
  // The log shrank below what was read (truncated, e.g. logrotate's copytruncate): what is in it
  // now was written after the cut, so read it from the start. Counted; the caller warns.
  if (st.size < cur.out)
    cur = {
      ...cur,
      out: 0,
      truncated: (cur.truncated ?? 0) + 1,
      ...tsShrank(runDir, paths.rankOutTimes(rank), cur),
    };
  const lines = await readBatch(runDir, outFile, cur.out, opts.final);
  if (lines.length === 0) return { cursor: cur, points: [], data: '', held: 0 };

  const tsAll = await readBatch(runDir, paths.rankOutTimes(rank), cur.ts);
  const skip = Math.max(0, cur.lines - cur.tsLines); // lines that already took the fallback time
  const times: number[] = [];
  for (let i = skip; i < Math.min(tsAll.length, skip + lines.length); i++)
    times.push(tsToMs(tsAll.text(i)) ?? mtime);
  const stale = opts.now - mtime > opts.graceMs;
  const take = opts.final || stale || opts.noWait ? lines.length : times.length;
  if (take === 0) return { cursor: cur, points: [], data: '', held: lines.length };
  while (times.length < take) times.push(mtime);

  const counters = { ...cur.counters };
  const ex = extractPoints(parser, lines, times, counters, take);
  const data = encodeRecords(ex.points);
  const tsUsed = Math.min(tsAll.length, skip + take);
  const cursor: RankCursor = {
    ...cur, // what other followers keep in the rank's cursor (its system metrics cursor) stays
    out: lines.end(take - 1),
    lines: cur.lines + take,
    ts: tsUsed > 0 ? tsAll.end(tsUsed - 1) : cur.ts,
    tsLines: cur.tsLines + tsUsed,
    spool: cur.spool + Buffer.byteLength(data),
    points: cur.points + ex.points.length,
    skipped: cur.skipped + ex.skipped,
    counters,
    ...((cur.host ?? ex.host) ? { host: (cur.host ?? ex.host) as string } : {}),
    ...(cur.truncated ? { truncated: cur.truncated } : {}),
  };
  return { cursor, points: ex.points, data, held: lines.length - take };
}

/** When .out.ts was cut too, its times start again with the lines after the cut. */
function tsShrank(runDir: string, file: string, cur: RankCursor): Partial<RankCursor> {
  const size = logStat(runDir, file)?.size ?? 0;
  return size < cur.ts ? { ts: 0, tsLines: cur.lines } : {};
}
