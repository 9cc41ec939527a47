// readRunMetrics: every rank's metric points straight from the logs, for reports (no network,
// writes nothing). Timestamps come from logs/rank-R.out.ts, else the log's mtime.
import { promises as fs } from 'fs';
import { runPaths } from '../core';
import { extractPoints } from './logs/extract';
import { completeLines, tsToMs } from './logs/lines';
import { parserFor } from './parsers';
import { assertRunDir, isFinal, listRanks, readJob, readRankFacts } from '../core';
import type { RankSeries } from './types';

export type { MetricPoint, RankSeries } from './types';

async function readOptional(file: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function readRunMetrics(runDir: string, opts: { format?: string } = {}): Promise<RankSeries[]> {
  await assertRunDir(runDir);
  const job = await readJob(runDir);
  const parser = parserFor(opts.format ?? job?.spec?.metrics_format);
  const paths = runPaths(runDir);
  const ended = job !== undefined && isFinal(job);
  const out: RankSeries[] = [];
  for (const rank of await listRanks(runDir)) {
    const [buf, tsBuf, st] = await Promise.all([
      fs.readFile(paths.rankOut(rank)),
      readOptional(paths.rankOutTimes(rank)),
      fs.stat(paths.rankOut(rank)),
    ]);
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
    const facts = await readRankFacts(runDir, rank);
    const host = facts?.host ?? ex.host;
    out.push({ rank, ...(host === undefined ? {} : { host }), points: ex.points, skipped: ex.skipped });
  }
  return out;
}
