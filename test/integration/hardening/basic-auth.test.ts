// Issue #6 item 16: against a real MLflow server started with `--app-name basic-auth` (its own
// state dir and loopback port, stopped by pid at the end): the right credentials work; wrong or
// missing ones fail at once, with a message that says what to set, and without a retry storm.
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { cli, clusterEnv, PYTHON, REPO, tmpDir, waitFor } from '../launcher/cluster';
import { readRunMetrics } from '../../../tracking-plugin';
import { history, jobRuns, triples } from '../tracking/helpers';
import { uniqueName } from '../tracking/server';

jest.setTimeout(300_000);
const ADMIN_PASSWORD = 'adm1n-Pw-9c2Lq';
const state = tmpDir('basic-auth');
let server: ChildProcess | undefined;
let uri = '';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

/** Requests the server logged (uvicorn access lines), to count retries. */
const serverLog = () => fs.readFileSync(path.join(state, 'server.log'), 'utf8');
const apiCalls = (log: string) => log.split('\n').filter((l) => /"(GET|POST) \/api\//.test(l));

beforeAll(async () => {
  const port = await freePort();
  uri = `http://127.0.0.1:${port}`;
  fs.writeFileSync(
    path.join(state, 'auth.ini'),
    [
      '[mlflow]',
      'default_permission = READ',
      `database_uri = sqlite:///${state}/auth.db`,
      'admin_username = admin',
      'authorization_function = mlflow.server.auth:authenticate_request_basic_auth',
      'grant_default_workspace_access = false',
      '',
    ].join('\n'),
  );
  const log = fs.openSync(path.join(state, 'server.log'), 'a');
  server = spawn(
    path.join(REPO, '.venv', 'bin', 'mlflow'),
    [
      'server',
      '--app-name',
      'basic-auth',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--backend-store-uri',
      `sqlite:///${state}/mlflow.db`,
      '--artifacts-destination',
      `${state}/artifacts`,
      '--serve-artifacts',
      '--allowed-hosts',
      `127.0.0.1:${port},localhost:${port},127.0.0.1,localhost`,
      '--workers',
      '1',
    ],
    {
      cwd: state,
      detached: true, // its own process group: stopped with its workers by that id
      stdio: ['ignore', log, log],
      env: {
        ...process.env,
        MLFLOW_AUTH_CONFIG_PATH: path.join(state, 'auth.ini'),
        MLFLOW_AUTH_ADMIN_PASSWORD: ADMIN_PASSWORD,
        MLFLOW_FLASK_SERVER_SECRET_KEY: 'tl-test-only',
      },
    },
  );
  await waitFor(
    'the basic-auth MLflow server',
    async () => {
      if (server!.exitCode !== null)
        throw new Error(
          `mlflow --app-name basic-auth exited ${server!.exitCode}:\n${serverLog().slice(-3000)}\n(needs Flask-WTF: pip install "mlflow[auth]")`,
        );
      return fetch(`${uri}/health`).then(
        (r) => r.ok,
        () => false,
      );
    },
    180_000,
    1000,
  );
});

afterAll(() => {
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
});

function runDirCopy(tag: string): string {
  const dir = path.join(tmpDir(`ba-${tag}`), 'run');
  fs.cpSync(path.join(REPO, 'test', 'fixtures', 'runs', 'polynomial-3'), dir, { recursive: true });
  return dir;
}

const authEnv = (extra: Record<string, string>) => {
  const e = clusterEnv({ MLFLOW_TRACKING_URI: uri, ...extra });
  for (const k of ['MLFLOW_TRACKING_USERNAME', 'MLFLOW_TRACKING_PASSWORD', 'MLFLOW_TRACKING_TOKEN'])
    if (!(k in extra)) delete e[k];
  return e;
};

test('the server really requires credentials', async () => {
  expect((await fetch(`${uri}/api/2.0/mlflow/experiments/search?max_results=1`)).status).toBe(401);
});

test('correct credentials: sync uploads every point, once', async () => {
  const dir = runDirCopy('ok');
  const experiment = uniqueName('basic-auth');
  const creds = { MLFLOW_TRACKING_USERNAME: 'admin', MLFLOW_TRACKING_PASSWORD: ADMIN_PASSWORD };
  const r = await cli(['sync', dir, '--experiment', experiment, '--json'], { env: authEnv(creds) });
  expect({ code: r.code, err: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, err: '' });
  const summary = JSON.parse(r.stdout);
  expect(summary).toMatchObject({ complete: true, pending: 0 });
  const client = await MlflowClient.connect(uri, creds);
  const exp = await client.getExperimentByName(experiment);
  const runs = await jobRuns(
    client,
    exp!.experiment_id,
    JSON.parse(fs.readFileSync(path.join(dir, 'tracking', 'state.json'), 'utf8')).job_key,
  );
  expect(runs.ranks.size).toBe(3);
  const series = await readRunMetrics(dir);
  for (const [rank, run] of runs.ranks) {
    const h = await history(client, run.info.run_id, 'loss');
    expect(h.length).toBeGreaterThan(10);
    expect(h).toEqual(triples(series[rank].points, 'loss')); // every point exactly once
  }
});

test.each([
  ['a wrong password', { MLFLOW_TRACKING_USERNAME: 'admin', MLFLOW_TRACKING_PASSWORD: 'not-the-password' }],
  ['an unknown user', { MLFLOW_TRACKING_USERNAME: 'nobody', MLFLOW_TRACKING_PASSWORD: 'whatever1' }],
  ['no credentials', {}],
  ['a bearer token the server does not know', { MLFLOW_TRACKING_TOKEN: 'bogus-token-123' }],
])(
  '%s: sync fails at once (exit 6) with a clear message, a handful of requests, nothing sent',
  async (_what, creds) => {
    const dir = runDirCopy('bad');
    const before = apiCalls(serverLog()).length;
    const r = await cli(['sync', dir], { env: authEnv(creds as Record<string, string>), timeoutMs: 60_000 });
    expect(r.code).toBe(6);
    expect(r.ms).toBeLessThan(10_000);
    expect(r.stderr).toContain('401');
    expect(r.stderr).toMatch(/MLFLOW_TRACKING_USERNAME/); // says what to set
    for (const s of Object.values(creds)) expect(r.stderr).not.toContain(s);
    await new Promise((res) => setTimeout(res, 500)); // let the access log catch up
    expect(apiCalls(serverLog()).length - before).toBeLessThanOrEqual(3);
    expect(r.stderr).not.toMatch(/when the server answers/); // it did answer: retrying later will not help
  },
);

test('submit --follow with a wrong password: the job still completes, tracking stops at once with the reason', async () => {
  const cwd = tmpDir('ba-follow');
  const before = apiCalls(serverLog()).length;
  const env = authEnv({ MLFLOW_TRACKING_USERNAME: 'admin', MLFLOW_TRACKING_PASSWORD: 'not-the-password' });
  const r = await cli(
    [
      'submit',
      '--executor',
      'local',
      '-N',
      '2',
      '--follow',
      '--poll',
      '0.5',
      '--run-dir',
      'run',
      '--',
      PYTHON,
      path.join(REPO, 'examples/polynomial/train.py'),
      '--epochs',
      '200',
      '--log-every',
      '20',
    ],
    { env, cwd },
  );
  expect(r.stderr).toMatch(/job \S+ COMPLETED/);
  expect(r.stderr).toContain('401');
  expect(r.stderr).toMatch(/MLFLOW_TRACKING_USERNAME/);
  expect(r.stderr).not.toContain('not-the-password');
  await new Promise((res) => setTimeout(res, 500));
  expect(apiCalls(serverLog()).length - before).toBeLessThanOrEqual(6); // not one retry per poll
  // Everything stays spooled: a later sync with the right password completes it.
  const s = await cli(['sync', path.join(cwd, 'run')], {
    env: authEnv({ MLFLOW_TRACKING_USERNAME: 'admin', MLFLOW_TRACKING_PASSWORD: ADMIN_PASSWORD }),
  });
  expect({ code: s.code, err: s.code === 0 ? '' : s.stderr }).toEqual({ code: 0, err: '' });
});
