// readRunMetrics: every rank's metric points straight from the logs, for reports (no network, writes
// nothing), read a bounded chunk at a time with ingestion's rules for long lines and times.
import {
  assertRunDir,
  isFinal,
  listRanks,
  logStat,
  readJobRecordIfAny,
  readRankFacts,
  runPaths,
} from '../core';
import { PointColumns } from './logs/columns';
import { extractPoints } from './logs/extract';
import { readBatch } from './logs/reader';
import { firstFallback, lineTimes } from './logs/times';
import { parserFor, type LineParser } from './parsers';
import type { MetricPoint, RankSeries } from './types';

export type { MetricPoint, RankSeries } from './types';

export async function readRunMetrics(runDir: string, opts: { format?: string } = {}): Promise<RankSeries[]> {
  assertRunDir(runDir);
  const job = readJobRecordIfAny(runDir);
  const parser = parserFor(opts.format ?? job?.spec?.metrics_format);
  // As ingestion does: once the job has ended, a last line without its newline is taken as it is.
  const ended = job !== undefined && isFinal(job);
  const out: RankSeries[] = [];
  for (const rank of listRanks(runDir)) {
    if (!logStat(runDir, runPaths(runDir).rankOut(rank))) continue; // listed a moment ago, moved away since
    const ex = await rankPoints(runDir, rank, parser, ended, Date.now());
    const host = readRankFacts(runDir, rank)?.host ?? ex.host;
    out.push(new ColumnSeries(rank, host, ex.columns, ex.skipped));
  }
  return out;
}

class ColumnSeries implements RankSeries {
  host?: string;
  private objects: MetricPoint[] | undefined;
  constructor(
    readonly rank: number,
    host: string | undefined,
    readonly columns: PointColumns,
    readonly skipped: number,
  ) {
    if (host !== undefined) this.host = host;
  }

  get points(): MetricPoint[] {
    return (this.objects ??= this.columns.toPoints());
  }
}

async function rankPoints(runDir: string, rank: number, parser: LineParser, ended: boolean, now: number) {
  const paths = runPaths(runDir);
  const columns = new PointColumns();
  const counters: Record<string, number> = {};
  let skipped = 0;
  let host: string | undefined;
  let last: number | undefined;
  let [at, tsAt] = [0, 0];
  for (;;) {
    const lines = await readBatch(runDir, paths.rankOut(rank), at, ended);
    if (lines.length === 0) break;
    const ts = await readBatch(runDir, paths.rankOutTimes(rank), tsAt);
    const times = lineTimes(ts, 0, lines.length, last ?? firstFallback(runDir, rank, now));
    const ex = extractPoints(parser, lines, times, counters, columns);
    skipped += ex.skipped;
    host ??= ex.host;
    last = times[times.length - 1];
    at = lines.end(lines.length - 1);
    const used = Math.min(ts.length, lines.length);
    tsAt = used > 0 ? ts.end(used - 1) : tsAt;
    if (!lines.more) break;
  }
  return { columns, skipped, host };
}
