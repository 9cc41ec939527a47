// The transport against a scripted loopback server: retries (429 with Retry-After, 503, resets),
// no retries on other 4xx, errors in words for non-JSON bodies, credentials never in messages.
import * as http from 'http';
import type { AddressInfo } from 'net';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { logBatch } from './helpers';

type Step = (req: http.IncomingMessage, res: http.ServerResponse) => void;
let server: http.Server;
let steps: Step[] = [];
let seen: { url: string; auth?: string }[] = [];
let uri = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({
      url: req.url ?? '',
      ...(req.headers.authorization ? { auth: req.headers.authorization } : {}),
    });
    req.resume();
    const step = steps.shift() ?? ((_q, r) => r.end('{}'));
    step(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));
beforeEach(() => {
  steps = [];
  seen = [];
});

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (_q, r) => {
    r.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    r.end(JSON.stringify(body));
  };

test('retries 429 (honouring Retry-After), 503 and a reset connection, then succeeds', async () => {
  const c = await MlflowClient.connect(uri, {});
  steps = [
    json(429, {}, { 'Retry-After': '1' }),
    json(503, { error_code: 'TEMPORARILY_UNAVAILABLE' }),
    (q) => q.socket.destroy(),
    json(200, { experiment: { experiment_id: '7', name: 'e' } }),
  ];
  const t0 = Date.now();
  expect((await c.getExperimentByName('e'))?.experiment_id).toBe('7');
  expect(seen.length).toBe(4);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
});

test('does not retry other 4xx; says what happened, also for plain-text bodies', async () => {
  const c = await MlflowClient.connect(uri, {});
  steps = [
    json(400, { error_code: 'INVALID_PARAMETER_VALUE', message: 'Changing param values is not allowed' }),
  ];
  await expect(logBatch(c, 'r', { params: [{ key: 'a', value: 'b' }] })).rejects.toThrow(
    'MLflow answered 400 INVALID_PARAMETER_VALUE to POST /api/2.0/mlflow/runs/log-batch: Changing param values is not allowed',
  );
  expect(seen.length).toBe(1);
  steps = [
    (_q, r) => {
      r.writeHead(403, { 'Content-Type': 'text/plain' });
      r.end('Invalid Host header - possible DNS rebinding attack detected');
    },
  ];
  await expect(c.getRun('x')).rejects.toMatchObject({
    code: 'TRACKING',
    message: expect.stringMatching(/Invalid Host header/),
    hint: expect.stringMatching(/--allowed-hosts/),
  });
});

test('a redirect is said with where it points, not followed (a POST would become a GET)', async () => {
  const c = await MlflowClient.connect(uri, {});
  for (const status of [301, 302, 307, 308]) {
    seen = [];
    steps = [
      (_q, r) => {
        r.writeHead(status, { Location: 'https://mlflow.example/api/2.0/mlflow/runs/log-batch' });
        r.end();
      },
    ];
    await expect(logBatch(c, 'r', { params: [{ key: 'a', value: 'b' }] })).rejects.toMatchObject({
      code: 'TRACKING',
      message: `the server redirected POST /api/2.0/mlflow/runs/log-batch to https://mlflow.example/api/2.0/mlflow/runs/log-batch (HTTP ${status}); track-launch does not follow redirects`,
      hint: expect.stringMatching(/MLFLOW_TRACKING_URI/),
    });
    expect(seen.map((x) => x.url)).toEqual(['/api/2.0/mlflow/runs/log-batch']); // asked once, not again
  }
});

test('sends basic or bearer credentials and never shows them', async () => {
  const c = await MlflowClient.connect(uri, {
    MLFLOW_TRACKING_USERNAME: 'alice',
    MLFLOW_TRACKING_PASSWORD: 'pa55-word-xyz',
    MLFLOW_HTTP_REQUEST_MAX_RETRIES: '0',
  });
  steps = [
    (_q, r) => {
      r.writeHead(500);
      r.end(`internal error for ${_q.headers.authorization} pa55-word-xyz`);
    },
  ];
  const err = await c.getRun('x').then(
    () => undefined,
    (e: Error) => e,
  );
  expect(seen[0].auth).toBe(`Basic ${Buffer.from('alice:pa55-word-xyz').toString('base64')}`);
  expect(String(err?.message)).not.toMatch(/pa55-word-xyz|YWxpY2U6cGE1NS13b3JkLXh5eg/);
  const b = await MlflowClient.connect(uri, { MLFLOW_TRACKING_TOKEN: 'tok-abcdef' });
  await b.health();
  expect(seen[1].auth).toBe('Bearer tok-abcdef');
});

test('a server without the artifact proxy: said clearly, marked unsupported', async () => {
  const c = await MlflowClient.connect(uri, {});
  steps = [
    json(200, {
      run: {
        info: {
          run_id: 'r',
          experiment_id: '1',
          status: 'RUNNING',
          artifact_uri: 'mlflow-artifacts:/1/r/artifacts',
        },
        data: {},
      },
    }),
    (_q, r) => {
      r.writeHead(404, { 'Content-Type': 'text/html' });
      r.end('<h1>Not Found</h1>');
    },
  ];
  await expect(c.uploadArtifact('r', 'a.txt', Buffer.from('x'))).rejects.toMatchObject({
    message: expect.stringMatching(/has no artifact proxy/),
    details: expect.objectContaining({ unsupported: true }),
  });
  steps = [
    json(200, {
      run: {
        info: { run_id: 's', experiment_id: '1', status: 'RUNNING', artifact_uri: 's3://bucket/x' },
        data: {},
      },
    }),
  ];
  await expect(c.uploadArtifact('s', 'a.txt', Buffer.from('x'))).rejects.toMatchObject({
    message: expect.stringMatching(/keeps its artifacts at s3:/),
    hint: expect.stringMatching(/--serve-artifacts/),
  });
});
