// readRunMetrics: every rank's metric points straight from the logs, for reports (no network,
// writes nothing). Timestamps come from logs/rank-R.out.ts, else the log's mtime.
import {
  assertRunDir,
  isFinal,
  listRanks,
  logStat,
  readJobRecordIfAny,
  readLog,
  readRankFacts,
  runPaths,
} from '../core';
import { extractPoints } from './logs/extract';
import { completeLines, tsToMs } from './logs/lines';
import { parserFor } from './parsers';
import type { RankSeries } from './types';

export type { MetricPoint, RankSeries } from './types';

export async function readRunMetrics(runDir: string, opts: { format?: string } = {}): Promise<RankSeries[]> {
  assertRunDir(runDir);
  const job = readJobRecordIfAny(runDir);
  const parser = parserFor(opts.format ?? job?.spec?.metrics_format);
  const paths = runPaths(runDir);
  const ended = job !== undefined && isFinal(job);
  const out: RankSeries[] = [];
  for (const rank of listRanks(runDir)) {
    const st = logStat(runDir, paths.rankOut(rank));
    const [buf, tsBuf] = await Promise.all([
      readLog(runDir, paths.rankOut(rank)),
      readLog(runDir, paths.rankOutTimes(rank)),
    ]);
    if (!st || !buf) continue; // listed a moment ago, gone now (moved away while we read)
    const { lines, consumed } = completeLines(buf, 0);
    // As ingestion does: once the job has ended, a last line without its newline is taken as it is.
    if (ended && consumed < buf.length) lines.push({ text: buf.toString('utf8', consumed), end: buf.length });
    const tsLines = tsBuf ? completeLines(tsBuf, 0).lines : [];
    const fallback = Math.floor(st.mtimeMs);
    const times = lines.map((_, i) => (i < tsLines.length ? tsToMs(tsLines[i].text) : undefined) ?? fallback);
    const ex = extractPoints(
      parser,
      lines.map((l) => l.text),
      times,
      {},
    );
    const facts = readRankFacts(runDir, rank);
    const host = facts?.host ?? ex.host;
    out.push({ rank, ...(host === undefined ? {} : { host }), points: ex.points, skipped: ex.skipped });
  }
  return out;
}
