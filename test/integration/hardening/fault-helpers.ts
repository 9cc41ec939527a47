// Helpers of the fault tests (launcher-faults, real-faults): ingest a run directory after the fact.
import * as path from 'path';
import { cli, lines, logFile, parseSeedLine, readText, said } from '../launcher/cluster';
import { readRunMetrics } from '../../../tracking-plugin';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { history, jobRuns, triples, type JobRuns } from '../tracking/helpers';
import { mlflowUp, uniqueName } from '../tracking/server';

/** `ingest` after the fact into a fresh experiment; checks every loss line is in MLflow once. */
export async function ingestedRuns(runDir: string, name: string, env: NodeJS.ProcessEnv): Promise<JobRuns> {
  const uri = mlflowUp();
  const experiment = uniqueName(name);
  const r = await cli(['ingest', runDir, '--experiment', experiment, '--no-report'], {
    env: { ...env, MLFLOW_TRACKING_URI: uri },
  });
  expect({ code: r.code, out: r.code === 0 ? '' : said(r) }).toEqual({ code: 0, out: '' });
  const client = await MlflowClient.connect(uri, {});
  const exp = await client.getExperimentByName(experiment);
  const jobKey = JSON.parse(readText(path.join(runDir, 'tracking', 'state.json'))).job_key as string;
  const runs = await jobRuns(client, exp!.experiment_id, jobKey); // throws unless one parent, one run per rank
  expect(runs.ranks.size).toBe(3);
  const series = await readRunMetrics(runDir);
  for (const [rank, run] of runs.ranks) {
    const logged = lines(logFile(runDir, `rank-${rank}.out`)).filter((l) => parseSeedLine(l)).length;
    const h = await history(client, run.info.run_id, 'loss');
    expect({ rank, points: h.length }).toEqual({ rank, points: logged });
    expect(h).toEqual(triples(series[rank].points, 'loss'));
  }
  return runs;
}
