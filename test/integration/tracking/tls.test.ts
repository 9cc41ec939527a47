// MLflow over HTTPS: a throwaway CA signs a certificate for 127.0.0.1, an https stand-in forwards
// to the real MLflow server. Untrusted by default (said in words, not retried), trusted with
// MLFLOW_TRACKING_SERVER_CERT_PATH, or unverified with MLFLOW_TRACKING_INSECURE_TLS=true; and
// sequential requests share one TLS connection (http.ts: keep-alive agents).
import * as fs from 'fs';
import { syncRunDir } from '../../../tracking-plugin';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { TrackLaunchError } from '../../../core/errors';
import { endJob, jobRecord, makeRunDir, writeJob } from '../../unit/tracking/fixture';
import { appendLines, logBatch, metricHistory } from './helpers';
import { mlflowUp, standIn, testCertificates, uniqueName, type StandIn } from './server';

jest.setTimeout(120_000);

let tls: StandIn;
let certs: ReturnType<typeof testCertificates>;
let otherCa: ReturnType<typeof testCertificates>;

beforeAll(async () => {
  certs = testCertificates();
  otherCa = testCertificates();
  tls = await standIn(mlflowUp(), { tls: { key: certs.key, cert: certs.cert } });
});
afterAll(async () => {
  await tls?.close();
  for (const c of [certs, otherCa]) if (c) fs.rmSync(c.dir, { recursive: true, force: true });
});
beforeEach(() => {
  tls.counts.connections = 0;
  tls.counts.handshakes = 0;
  tls.counts.requests = [];
});

async function failure(p: Promise<unknown>): Promise<TrackLaunchError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof TrackLaunchError)) throw new Error(`expected a TrackLaunchError, got ${String(err)}`);
  return err;
}

/** Create an experiment and a run, log points, read them back: the whole round trip over TLS. */
async function roundTrip(client: MlflowClient): Promise<void> {
  const exp = (await client.findOrCreateExperiment(uniqueName('tls'))).id;
  const run = await client.createRun({
    experimentId: exp,
    runName: 'tls',
    startTime: 1764669000000,
    tags: [],
  });
  const points = [0, 1, 2].map((i) => ({
    key: 'loss',
    value: 1 / (i + 2),
    step: i,
    timestamp: 1764669000000 + i,
  }));
  await logBatch(client, run.info.run_id, { metrics: points });
  const back = await metricHistory(client, run.info.run_id, 'loss');
  expect(back.map((p) => [p.step, p.value, p.timestamp]).sort((a, b) => a[0] - b[0])).toEqual([
    [0, 0.5, 1764669000000],
    [1, 1 / 3, 1764669000001],
    [2, 0.25, 1764669000002],
  ]);
  expect((await client.getRun(run.info.run_id)).info.experiment_id).toBe(exp);
}

test('untrusted certificate: says so, names both settings, one try only; sync stops for good', async () => {
  const client = await MlflowClient.connect(tls.uri, {}); // default retries (7)
  const err = await failure(client.getExperimentByName('x'));
  expect(err.code).toBe('TRACKING');
  expect(err.message).toContain(`the TLS certificate of ${tls.uri} is not trusted`);
  expect(err.message).toContain('MLFLOW_TRACKING_SERVER_CERT_PATH=');
  expect(err.message).toContain('MLFLOW_TRACKING_INSECURE_TLS=true');
  expect(err.details).toMatchObject({ tls: true, attempts: 1 });
  expect(err.details.network).toBeUndefined(); // not a network error: the ingester must not wait it out
  expect([tls.counts.connections, tls.counts.requests.length]).toEqual([1, 0]);

  // a CA bundle that did not sign it: the message names the file
  const wrong = await MlflowClient.connect(tls.uri, { MLFLOW_TRACKING_SERVER_CERT_PATH: otherCa.caPem });
  const e2 = await failure(wrong.health());
  expect(e2.message).toContain(`MLFLOW_TRACKING_SERVER_CERT_PATH=${otherCa.caPem} does not hold the CA`);

  // the ingester: a refusal to fix, not an outage to wait out
  const dir = await makeRunDir();
  await writeJob(dir, jobRecord({ job_id: uniqueName('tls') }, 1));
  await appendLines(dir, 0, ['epoch 0, loss = 1.0, rank 0/1 (a).'], 1764669000);
  await endJob(dir, 'COMPLETED');
  tls.counts.connections = 0;
  const s = await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: tls.uri } });
  expect(s).toMatchObject({ complete: false, stopped: true, pointsSent: 0, pending: 4 }); // 1 point + loss/mean, min, max
  expect(s.lastError).toMatch(/is not trusted.*MLFLOW_TRACKING_INSECURE_TLS=true/);
  expect(tls.counts.connections).toBe(1);
});

test('MLFLOW_TRACKING_SERVER_CERT_PATH: the CA is trusted, experiment, run and metrics round-trip', async () => {
  await roundTrip(await MlflowClient.connect(tls.uri, { MLFLOW_TRACKING_SERVER_CERT_PATH: certs.caPem }));
  expect(tls.counts.requests.length).toBeGreaterThanOrEqual(5);
});

test('MLFLOW_TRACKING_INSECURE_TLS=true: no verification, the same round trip works', async () => {
  await roundTrip(await MlflowClient.connect(tls.uri, { MLFLOW_TRACKING_INSECURE_TLS: 'true' }));
  expect(tls.counts.requests.length).toBeGreaterThanOrEqual(5);
});

test('keep-alive: sequential requests share one TLS connection', async () => {
  const client = await MlflowClient.connect(tls.uri, { MLFLOW_TRACKING_SERVER_CERT_PATH: certs.caPem });
  await client.health();
  for (let i = 0; i < 5; i++) expect(await client.getExperimentByName(uniqueName('absent'))).toBeUndefined();
  await roundTrip(client);
  expect(tls.counts.requests.length).toBeGreaterThanOrEqual(12);
  expect([tls.counts.connections, tls.counts.handshakes]).toEqual([1, 1]);
});
