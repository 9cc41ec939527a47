// MlflowClient against a real MLflow server (test/mlflow/up).
import { splitBatch } from '../../../tracking-plugin/mlflow/batch';
import { sendBisecting } from '../../../tracking-plugin/mlflow/bisect';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { logBatch, metricHistory } from './helpers';
import { mlflowUp, uniqueName } from './server';

jest.setTimeout(180_000);
let client: MlflowClient;
let exp: string;

beforeAll(async () => {
  client = await MlflowClient.connect(mlflowUp(), {});
  exp = (await client.findOrCreateExperiment(uniqueName('client'))).id;
});

test('experiments: get-or-create is race-safe', async () => {
  const name = uniqueName('race');
  const ids = await Promise.all(
    [0, 1, 2, 3, 4].map(async () => (await client.findOrCreateExperiment(name)).id),
  );
  expect(new Set(ids).size).toBe(1);
  expect(await client.getExperimentByName(uniqueName('absent'))).toBeUndefined();
});

test('log-batch: NaN and Infinity, limits; the same batches again (a resend after a lost answer) add nothing', async () => {
  const run = await client.createRun({
    experimentId: exp,
    runName: 'r',
    startTime: 1764669000000,
    tags: [{ key: 'k', value: 'v' }],
  });
  const id = run.info.run_id;
  const metrics = Array.from({ length: 2500 }, (_, i) => ({
    key: 'm',
    value: i === 3 ? NaN : i === 4 ? Infinity : i === 5 ? -Infinity : i / 7,
    step: i,
    timestamp: 1764669000000 + i,
  }));
  const params = Array.from({ length: 150 }, (_, i) => ({ key: `p${i}`, value: String(i) }));
  await logBatch(client, id, { metrics, params });
  // The same again, as the sender resends (bisecting what the server refuses): MLflow 3 drops exact
  // duplicates; MLflow 2 refuses a batch holding a stored NaN point (its duplicate check misses NaN).
  for (const body of splitBatch(id, { metrics, params }))
    expect(await sendBisecting(body, (b) => client.logBatchRequest(b))).toEqual([]);
  const hist = await metricHistory(client, id, 'm');
  expect(hist.length).toBe(2500);
  const byStep = new Map(hist.map((p) => [p.step, p.value]));
  expect(byStep.get(3)).toBeNaN();
  // MLflow's SQL store keeps ±Infinity as ±Number.MAX_VALUE (its sanitize_metric_value)
  expect(Math.abs(byStep.get(4) as number)).toBeGreaterThanOrEqual(Number.MAX_VALUE);
  expect(byStep.get(5)).toBeLessThanOrEqual(-Number.MAX_VALUE);
  expect(byStep.get(7)).toBe(1);
  const got = await client.getRun(id);
  expect(got.data.params?.length).toBe(150);
  // a point differing only in its timestamp is a second point: why timestamps are fixed before sending
  await logBatch(client, id, { metrics: [{ key: 'm', value: 0, step: 0, timestamp: 1 }] });
  expect((await metricHistory(client, id, 'm')).length).toBe(2501);
});

test('runs: search by tag, update status, artifacts through the proxy', async () => {
  const tag = uniqueName('t');
  const run = await client.createRun({
    experimentId: exp,
    runName: 'a',
    startTime: Date.now(),
    tags: [{ key: 'track_launch.job_key', value: tag }],
  });
  const found = await client.searchAllRuns([exp], `tags.\`track_launch.job_key\` = '${tag}'`);
  expect(found.map((r) => r.info.run_id)).toEqual([run.info.run_id]);
  await client.updateRun(run.info.run_id, { status: 'FAILED', endTime: 1764669100000 });
  const got = await client.getRun(run.info.run_id);
  expect([got.info.status, Number(got.info.end_time)]).toEqual(['FAILED', 1764669100000]);
  await client.uploadArtifact(run.info.run_id, 'logs/rank 0.out', Buffer.from('hello\n'), 'text/plain');
  await client.uploadArtifact(run.info.run_id, 'job.sbatch', Buffer.from('#!/bin/bash\n'));
  expect((await client.listArtifacts(run.info.run_id)).map((f) => f.path).sort()).toEqual([
    'job.sbatch',
    'logs',
  ]);
  expect(await client.listArtifacts(run.info.run_id, 'logs')).toEqual([
    { path: 'logs/rank 0.out', is_dir: false, file_size: 6 },
  ]);
});

test('errors are in words and name the endpoint', async () => {
  await expect(client.getRun('0123456789abcdef')).rejects.toThrow(
    /MLflow answered 404 RESOURCE_DOES_NOT_EXIST to GET \/api\/2.0\/mlflow\/runs\/get/,
  );
  const bad = await MlflowClient.connect('http://127.0.0.1:1', {}, { maxRetries: 0 });
  await expect(bad.getExperimentByName('x')).rejects.toThrow(
    /cannot reach MLflow at http:\/\/127.0.0.1:1 .*ECONNREFUSED/,
  );
});
