// Effects: everything a report needs from one run directory.
import {
  listRanks,
  logStat,
  readJobRecordIfAny,
  readEvaluationJson,
  readNodeResources,
  readRankFacts,
  runPaths,
  TrackLaunchError,
  type RankFacts,
} from '../../core';
import { readRunMetrics } from '../../tracking-plugin';
import type { ReportData } from '../model';
import { parseEvaluation } from './evaluation';
import { toMetricSeries } from './metrics';

export interface LoadOptions {
  /** The log format of the metric lines; default job.json's. */
  format?: string;
  /** The parent MLflow run's URL, shown and linked in the report. */
  mlflowUrl?: string;
}

export async function loadReportData(runDir: string, opts: LoadOptions = {}): Promise<ReportData> {
  const ranks = await readRunMetrics(runDir, { format: opts.format }); // also checks that runDir is a directory
  const job = readJobRecordIfAny(runDir);
  // the facts of the ranks that wrote a log, as the metrics are
  const facts = listRanks(runDir)
    .map((rank) => readRankFacts(runDir, rank))
    .filter((f): f is RankFacts => f !== undefined);
  const found = readEvaluationJson(runDir);
  const evaluation = found && parseEvaluation(found.value, found.file);
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
  if (listRanks(runDir).some((r) => logStat(runDir, runPaths(runDir).rankOutTimes(r)))) data.lineTimes = true;
  if (job) data.job = job;
  if (evaluation) data.evaluation = evaluation;
  if (resources.length) data.resources = resources;
  if (opts.mlflowUrl) data.mlflowUrl = opts.mlflowUrl;
  return data;
}
