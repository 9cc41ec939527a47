// doctor on the real test cluster and MLflow server: green, then naming the failure when MLflow is
// down and when the run directory is not shared with the compute nodes.
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import { CLI, clusterEnv, type CliResult, cli, requireCluster, said, tmpDir } from '../launcher/cluster';
import { mlflowUp, standIn } from '../tracking/server';
import { bridgeRelay } from '../tracking-cluster/bridge';

jest.setTimeout(180_000);

let uri: string;
let work: string;

beforeAll(() => {
  requireCluster();
  uri = mlflowUp();
  work = tmpDir('doctor');
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const lineOf = (r: CliResult, check: string) =>
  r.stdout.split('\n').find((l) => new RegExp(`^(OK|WARN|FAIL)\\s+${check}\\s`).test(l));

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

test('green on the test cluster with MLflow up', async () => {
  const r = await cli(['doctor', '--run-dir', work], {
    env: clusterEnv({ MLFLOW_TRACKING_URI: uri }),
    timeoutMs: 150_000,
  });
  expect(r.code).toBe(0);
  expect(r.stdout).not.toMatch(/^FAIL/m);
  for (const check of [
    'node',
    'install',
    'renderer',
    'fonts',
    'slurm-sbatch',
    'slurm-squeue',
    'slurm-partitions',
    'run-dir',
    'mlflow-health',
    'mlflow-auth',
    'mlflow-experiment',
    'mlflow-artifacts',
  ])
    expect(lineOf(r, check)).toMatch(/^OK/);
  expect(lineOf(r, 'run-dir')).toMatch(/probe job \d+ on tlnode\d wrote into /);
  // What --track job needs, seen from the node: Node.js here, but MLflow on this host's loopback is
  // not the node's (its own 127.0.0.1): a warning that says what to do.
  expect(lineOf(r, 'track-job-node')).toMatch(
    new RegExp(`^OK\\s+track-job-node\\s+tlnode\\d runs Node\\.js v\\d+`),
  );
  expect(lineOf(r, 'track-job-route')).toMatch(
    new RegExp(`^WARN\\s+track-job-route\\s+tlnode\\d cannot reach ${uri}/health .*--track login`),
  );
  expect(lineOf(r, 'slurm-partitions')).toMatch(/debug\* \(up, 3 nodes\)/);
  expect(fs.readdirSync(work)).toEqual([]); // the probe's directory is gone again
  const json = await cli(['doctor', '--no-job', '--json'], { env: clusterEnv({ MLFLOW_TRACKING_URI: uri }) });
  expect(JSON.parse(json.stdout)).toMatchObject({ ok: true });
});

test('MLflow where the compute nodes reach it (the cluster bridge): OK track-job-route', async () => {
  // A stand-in in between: MLflow answers only the Host names it was started with.
  const hostFixed = await standIn(uri);
  const relay = await bridgeRelay(Number(new URL(hostFixed.uri).port));
  try {
    const r = await cli(['doctor', '--run-dir', work], {
      env: clusterEnv({ MLFLOW_TRACKING_URI: relay.uri }),
      timeoutMs: 150_000,
    });
    expect({ code: r.code, route: lineOf(r, 'track-job-route') }).toEqual({
      code: 0,
      route: expect.stringMatching(
        new RegExp(`^OK\\s+track-job-route\\s+tlnode\\d reaches ${relay.uri}/health \\(HTTP 200`),
      ),
    });
  } finally {
    await relay.close();
    await hostFixed.close();
  }
});

test('MLflow down: FAIL mlflow-health naming the address, exit 6', async () => {
  const down = `http://127.0.0.1:${await closedPort()}`;
  const r = await cli(['doctor', '--no-job'], { env: clusterEnv({ MLFLOW_TRACKING_URI: down }) });
  expect(r.code).toBe(6);
  expect(lineOf(r, 'mlflow-health')).toMatch(
    new RegExp(
      `^FAIL\\s+mlflow-health\\s+${down} does not answer /health: cannot reach MLflow.*ECONNREFUSED.*MLFLOW_TRACKING_URI`,
    ),
  );
  expect(lineOf(r, 'run-dir')).toMatch(/^WARN\s+run-dir\s+not checked \(--no-job\)/);
  expect(r.ms).toBeLessThan(30_000);
});

// The test cluster's nodes share the host's mount namespace (only network and hostname are
// their own), so "not shared" is made for real: doctor runs in a private mount namespace with a
// tmpfs over its --run-dir. The login side sees the tmpfs; the compute nodes see the empty
// directory beneath it, without the probe's temporary directory, so the job cannot write there.
test('run directory not shared with the compute nodes: FAIL run-dir, exit 7', async () => {
  const hidden = tmpDir('doctor-hidden');
  const env = clusterEnv({ MLFLOW_TRACKING_URI: uri });
  const script = 'mount -t tmpfs tmpfs "$1" && shift && exec "$@"';
  const child = spawn(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      'bash',
      '-c',
      script,
      '_',
      hidden,
      process.execPath,
      CLI,
      'doctor',
      '--run-dir',
      hidden,
      '--timeout',
      '60',
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const r = { code, stdout, stderr, signal: null, stdoutBytes: Buffer.from(stdout), ms: 0 };
  expect({ code, line: lineOf(r, 'run-dir') }).toEqual({
    code: 7,
    line: expect.stringMatching(
      /^FAIL\s+run-dir\s+probe job \d+ on tlnode\d could not write into .*: the compute nodes do not see it; put --run-dir on a filesystem every compute node mounts/,
    ),
  });
  expect(lineOf(r, 'mlflow-health')).toMatch(/^OK/); // the other checks still ran
  if (code !== 7) throw new Error(said(r));
  fs.rmSync(hidden, { recursive: true, force: true });
});
