// Issue #6 item 3: the MLflow server is down when the job starts. The job still runs and
// completes; live ingestion spools meanwhile, keeps trying, and completes once the server is back
// (same port, same data): every point in MLflow exactly once.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import { promisify } from 'util';
import { readRunMetrics } from '../../../tracking-plugin';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import {
  cancelJobs,
  cli,
  clusterEnv,
  jobIdOf,
  PYTHON,
  REPO,
  requireCluster,
  tmpDir,
  waitFor,
  writtenJobRecord,
} from '../launcher/cluster';
import { history, jobRuns, triples } from '../tracking/helpers';
import { mlflowDown, uniqueName } from '../tracking/server';

jest.setTimeout(400_000);
const submitted: string[] = [];
let server: { dir: string; uri: string } | undefined;
beforeAll(requireCluster);
afterAll(() => {
  cancelJobs(submitted);
  if (server) mlflowDown(server.dir, true);
});

test('MLflow down at submit: the job completes, ingestion waits, then lands every point once', async () => {
  // A server that is down when the job starts: its state dir and port are fixed (test/mlflow/up
  // reuses them), but it is only started once the job has ended.
  const state = tmpDir('mlflow-down-state');
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  fs.writeFileSync(path.join(state, 'port'), `${port}\n`);
  const uri = `http://127.0.0.1:${port}`;
  server = { dir: state, uri };
  expect(
    await fetch(`${uri}/health`).then(
      () => 'up',
      () => 'down',
    ),
  ).toBe('down');

  const runDir = path.join(tmpDir('mlflow-down'), 'run');
  const experiment = uniqueName('down');
  const env = clusterEnv({ MLFLOW_TRACKING_URI: uri, MLFLOW_EXPERIMENT_NAME: experiment });
  const follow = cli(
    [
      'submit',
      '-N',
      '3',
      '--follow',
      '--poll',
      '0.5',
      '--run-dir',
      runDir,
      '--json',
      '--',
      PYTHON,
      'examples/polynomial/train.py',
      '--epochs',
      '200',
      '--log-every',
      '20',
    ],
    { env, timeoutMs: 300_000 },
  );

  // Bring the server back only after the job has finished: everything must wait for it.
  await waitFor(
    'the job to finish',
    () => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(writtenJobRecord(runDir)?.state?.name ?? ''),
    180_000,
  );
  await promisify(execFile)(path.join(REPO, 'test', 'mlflow', 'up'), [state], { timeout: 120_000 });

  const r = await follow;
  const out = r.stdout.trim() ? JSON.parse(r.stdout.split(/\n(?=\{)/)[0]) : {};
  expect({ code: r.code, state: out.state?.name, err: r.code === 0 ? '' : r.stderr.slice(-2000) }).toEqual({
    code: 0,
    state: 'COMPLETED',
    err: '',
  });
  submitted.push(out.job_id ?? jobIdOf(r));
  expect(out.tracking).toMatchObject({ complete: true, pending: 0, status: 'FINISHED' });

  const client = await MlflowClient.connect(uri, {});
  const exp = await client.getExperimentByName(experiment);
  const runs = await jobRuns(
    client,
    exp!.experiment_id,
    JSON.parse(fs.readFileSync(path.join(runDir, 'tracking', 'state.json'), 'utf8')).job_key,
  );
  expect(runs.ranks.size).toBe(3);
  const series = await readRunMetrics(runDir);
  for (const [rank, run] of runs.ranks) {
    const h = await history(client, run.info.run_id, 'loss');
    expect([rank, h.length]).toEqual([rank, 11]); // epochs 0, 20, ..., 180, 199
    expect(h).toEqual(triples(series[rank].points, 'loss'));
  }
  expect((await history(client, runs.parent.info.run_id, 'loss/mean')).length).toBe(11);
});
