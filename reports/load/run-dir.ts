// Effects: everything a report needs from one run directory.
import { TrackLaunchError } from '../../core';
import { runPaths, type RankFacts } from '../../core';
import { listRanks, readJob, readRankFacts } from '../../core';
import { readRunMetrics } from '../../tracking-plugin';
import type { ReportData } from '../model';
import { readEvaluation } from './evaluation';
import { toMetricSeries } from './metrics';
import { readNodeResources } from './resources';

export async function loadReportData(runDir: string, opts: { format?: string } = {}): Promise<ReportData> {
  const ranks = await readRunMetrics(runDir, opts); // also checks that runDir is a directory
  const job = await readJob(runDir);
  const facts: RankFacts[] = [];
  for (const rank of await listRanks(runDir)) {
    const f = await readRankFacts(runDir, rank);
    if (f) facts.push(f);
  }
  const evaluation = await readEvaluation(runPaths(runDir).evaluation);
  const metrics = toMetricSeries(ranks);
  const resources = await readNodeResources(runDir);
  if (!job && metrics.length === 0 && facts.length === 0 && !evaluation) {
    throw new TrackLaunchError(
      'REPORT',
      `nothing to report in ${runDir}: no job.json, no logs/rank-R.out, no eval/evaluation.json`,
      {
        hint: 'pass the run directory a job wrote (see docs/run-dir.md), or the job id of a submitted job',
        details: { run_dir: runDir },
      },
    );
  }
  const data: ReportData = { runDir, facts, metrics, skipped: ranks.reduce((n, r) => n + r.skipped, 0) };
  if (job) data.job = job;
  if (evaluation) data.evaluation = evaluation;
  if (resources.length) data.resources = resources;
  return data;
}
