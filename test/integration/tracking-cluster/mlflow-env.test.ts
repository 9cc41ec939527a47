// submit --mlflow-env on the real cluster and server: the job's runs are made before sbatch, and a
// script on 3 nodes using the real `mlflow` Python client (the test venv's) logs into its rank's run
// of the job: exactly one parent and 3 rank runs and nothing else in the experiment, the script's
// param and metric in rank 0's run beside track-launch's parsed points (each sent once, counted at a
// proxy the nodes reach on the cluster bridge), the parent named `<name> #<job id>`, all FINISHED.
import * as fs from 'fs';
import * as path from 'path';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { readRunMetrics } from '../../../tracking-plugin/series';
import { cli, clusterEnv, jobIdOf, requireCluster, said, tmpDir } from '../launcher/cluster';
import { countingProxy, pointId } from '../tracking/counting-proxy';
import { bridgeRelay } from './bridge';
import { history, jobRuns, tag, triples } from '../tracking/helpers';
import { mlflowPython, mlflowUp, uniqueName } from '../tracking/server';

jest.setTimeout(300_000);
beforeAll(requireCluster);

const EPOCHS = 15;

test("--mlflow-env: the script's own mlflow calls land in rank 0's run of the job, no stray run", async () => {
  const mlflow = mlflowUp();
  const proxy = await countingProxy(mlflow);
  const bridge = await bridgeRelay(Number(new URL(proxy.uri).port));
  try {
    const experiment = uniqueName('mlflow-env');
    const runDir = path.join(tmpDir('mlflow-env'), 'run');
    // MLFLOW_EXPERIMENT_NAME names another experiment: the ranks must not get it (MLflow would refuse).
    const env = clusterEnv({ MLFLOW_TRACKING_URI: bridge.uri, MLFLOW_EXPERIMENT_NAME: 'not-this-one' });
    const r = await cli(
      ['submit', '-N', '3', '--name', 'own-calls', '--experiment', experiment, '--mlflow-env']
        .concat(['--run-dir', runDir, '--follow', '--'])
        .concat([mlflowPython(), 'examples/mlflow/own_calls.py', '--epochs', String(EPOCHS)]),
      { env, timeoutMs: 240_000 },
    );
    expect({ code: r.code, said: r.code === 0 ? '' : said(r) }).toEqual({ code: 0, said: '' });
    const jobId = jobIdOf(r);

    const client = await MlflowClient.connect(mlflow);
    const exp = await client.getExperimentByName(experiment);
    // Nothing in the experiment but the job's runs: no stray run from the script's calls.
    const everything = await client.searchAllRuns([exp!.experiment_id], '');
    expect(everything).toHaveLength(4);
    const state = JSON.parse(fs.readFileSync(path.join(runDir, 'tracking', 'state.json'), 'utf8'));
    const runs = await jobRuns(client, exp!.experiment_id, state.job_key);
    expect(runs.all).toHaveLength(4);
    expect([...runs.ranks.keys()].sort()).toEqual([0, 1, 2]);
    // The runs the ranks were given at submit are the runs ingestion used.
    const tsv = fs.readFileSync(path.join(runDir, 'tracking', 'mlflow-env.tsv'), 'utf8');
    expect(tsv).toContain(`uri\t${bridge.uri}\n`);
    expect(tsv).toContain(`experiment\t${exp!.experiment_id}\n`);
    for (const [rank, run] of runs.ranks) expect(tsv).toContain(`rank\t${rank}\t${run.info.run_id}\n`);

    expect(runs.parent.info.run_name).toBe(`own-calls #${jobId}`);
    expect(tag(runs.parent, 'slurm.job_id')).toBe(jobId);
    for (const run of runs.all) expect(run.info.status).toBe('FINISHED');
    expect(runs.parent.data.params?.find((p) => p.key === 'job.world_size')?.value).toBe('3');

    // Rank 0's run: the script's param and metric (through MLflow's own client), and the parsed loss.
    const rank0 = runs.ranks.get(0)!;
    expect(rank0.data.params).toEqual([{ key: 'optimizer', value: 'sgd' }]);
    const own = await history(client, rank0.info.run_id, 'script/loss');
    expect(own.map(([step, value]) => [step, value])).toEqual(
      Array.from({ length: EPOCHS }, (_, e) => [e, 1 / (e + 1)]),
    );
    const series = await readRunMetrics(runDir);
    for (const [rank, run] of runs.ranks) {
      const fromLog = triples(series.find((s) => s.rank === rank)!.points, 'loss');
      expect(fromLog.map((t) => t[0])).toEqual(Array.from({ length: EPOCHS }, (_, e) => e));
      expect(await history(client, run.info.run_id, 'loss')).toEqual(fromLog);
      // Counted at the proxy: track-launch sent each parsed point of this rank once.
      const sent = proxy.sent.filter((p) => p.runId === run.info.run_id && p.key === 'loss');
      expect(sent.length).toBe(EPOCHS);
      expect(new Set(sent.map(pointId)).size).toBe(EPOCHS);
      if (rank !== 0) expect(await history(client, run.info.run_id, 'script/loss')).toEqual([]);
    }
  } finally {
    await bridge.close();
    await proxy.close();
  }
});

test('sbatch refuses the job: nothing submitted, the runs made for it end KILLED', async () => {
  const uri = mlflowUp();
  const experiment = uniqueName('mlflow-env-refused');
  const runDir = path.join(tmpDir('mlflow-env-refused'), 'run');
  // --no-check: past the preflight, so that sbatch itself refuses the partition
  const r = await cli(
    [
      'submit',
      '-N',
      '2',
      '--no-check',
      '--partition',
      'nope',
      '--experiment',
      experiment,
      '--mlflow-env',
    ].concat(['--run-dir', runDir, '--', 'true']),
    { env: clusterEnv({ MLFLOW_TRACKING_URI: uri }) },
  );
  expect(r.code).not.toBe(0);
  expect(r.stderr).toMatch(/sbatch refused the job/);
  expect(fs.existsSync(runDir)).toBe(false);
  const client = await MlflowClient.connect(uri);
  const exp = await client.getExperimentByName(experiment);
  const runs = await client.searchAllRuns([exp!.experiment_id], '');
  expect(runs.map((x) => x.info.status)).toEqual(['KILLED', 'KILLED', 'KILLED']);
});

test('a run the script ended (FINISHED) takes the final status track-launch sets', async () => {
  const uri = mlflowUp();
  const client = await MlflowClient.connect(uri);
  const exp = await client.findOrCreateExperiment(uniqueName('ended-early'));
  const run = await client.createRun({
    experimentId: exp.id,
    runName: 'rank-0',
    startTime: Date.now(),
    tags: [],
  });
  const id = run.info.run_id;
  // As a script's mlflow.end_run() (or its exit) does: FINISHED through MLflow's own client.
  const { execFileSync } = await import('child_process');
  const code = `import mlflow, os; mlflow.start_run(run_id="${id}"); mlflow.end_run()`;
  execFileSync(mlflowPython(), ['-c', code], { env: { ...process.env, MLFLOW_TRACKING_URI: uri } });
  expect((await client.getRun(id)).info.status).toBe('FINISHED');
  await client.updateRun(id, { status: 'FAILED', endTime: Date.now() }); // what the final update sends
  expect((await client.getRun(id)).info.status).toBe('FAILED');
});
