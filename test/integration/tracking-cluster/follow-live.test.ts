// Issue 3's acceptance on the real cluster: the polynomial example on 3 Slurm nodes, followed
// live by `submit --follow`, lands in MLflow as one parent and 3 rank runs, exactly once; the
// report is attached; a later `ingest` changes nothing.
import * as fs from 'fs';
import * as path from 'path';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { readRunMetrics } from '../../../tracking-plugin/series';
import { cli, clusterEnv, jobIdOf, PYTHON, requireCluster, said, tmpDir, TRAIN } from '../launcher/cluster';
import { history, jobRuns, tag, triples } from '../tracking/helpers';
import { mlflowUp, uniqueName } from '../tracking/server';

jest.setTimeout(300_000);
beforeAll(requireCluster);

test('submit --follow on 3 nodes: parent + 3 rank runs, histories equal the logs, aggregates, status, report', async () => {
  const uri = mlflowUp();
  const experiment = uniqueName('cluster-live');
  const runDir = path.join(tmpDir('live'), 'run');
  const env = clusterEnv({ MLFLOW_TRACKING_URI: uri });
  const r = await cli(
    [
      'submit',
      '-N',
      '3',
      '--name',
      'poly-live',
      '--experiment',
      experiment,
      '--param',
      'lr=0.001',
      '--run-dir',
      runDir,
      '--follow',
      '--',
      PYTHON,
      TRAIN,
      '--epochs',
      '500',
      '--log-every',
      '50',
    ],
    { env, timeoutMs: 240_000 },
  );
  expect({ code: r.code, said: r.code === 0 ? '' : said(r) }).toEqual({ code: 0, said: '' });
  const jobId = jobIdOf(r);

  const client = await MlflowClient.connect(uri);
  const exp = await client.getExperimentByName(experiment);
  const state = JSON.parse(fs.readFileSync(path.join(runDir, 'tracking', 'state.json'), 'utf8'));
  const runs = await jobRuns(client, exp!.experiment_id, state.job_key);
  expect(runs.all).toHaveLength(4);
  expect(runs.parent.info.status).toBe('FINISHED');
  expect(runs.parent.info.end_time).toBeGreaterThan(0);
  expect(tag(runs.parent, 'slurm.job_id')).toBe(jobId);
  expect(tag(runs.parent, 'slurm.nodelist')).toBe('tlnode[1-3]');
  expect(tag(runs.parent, 'master_addr')).toBe('10.77.77.11');
  expect(runs.parent.data.params?.find((p) => p.key === 'lr')?.value).toBe('0.001');

  const series = await readRunMetrics(runDir);
  for (const rank of [0, 1, 2]) {
    const run = runs.ranks.get(rank)!;
    expect(run.info.run_name).toBe(`rank-${rank}`);
    expect(tag(run, 'mlflow.parentRunId')).toBe(runs.parent.info.run_id);
    expect(tag(run, 'host')).toBe(`tlnode${rank + 1}`);
    expect(tag(run, 'ip')).toBe(`10.77.77.1${rank + 1}`);
    const fromLog = triples(series.find((s) => s.rank === rank)!.points, 'loss');
    expect(fromLog.map((t) => t[0])).toEqual([0, 50, 100, 150, 200, 250, 300, 350, 400, 450, 499]);
    expect(await history(client, run.info.run_id, 'loss')).toEqual(fromLog);
  }
  for (const k of ['loss/mean', 'loss/min', 'loss/max'])
    expect(await history(client, runs.parent.info.run_id, k)).toHaveLength(11);
  const reports = (await client.listArtifacts(runs.parent.info.run_id, 'reports')).map((f) => f.path);
  expect(reports).toEqual(
    expect.arrayContaining(['reports/report.pdf', 'reports/loss.png', 'reports/evaluation.png']),
  );

  // Ingesting again after the job: no new runs, no new points.
  const again = await cli(['ingest', runDir, '--no-report'], { env });
  expect(again.code).toBe(0);
  const after = await jobRuns(client, exp!.experiment_id, state.job_key);
  expect(after.all).toHaveLength(4);
  for (const rank of [0, 1, 2])
    expect(await history(client, after.ranks.get(rank)!.info.run_id, 'loss')).toHaveLength(11);
});
