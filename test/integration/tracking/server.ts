// The real MLflow server for tracking tests, through test/mlflow/up (idempotent: reuses a
// running server). A test that stops the server uses its own state dir (ownServer).
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const HARNESS = path.resolve(__dirname, '../../mlflow');

export function mlflowUp(stateDir?: string): string {
  const out = execFileSync(path.join(HARNESS, 'up'), stateDir ? [stateDir] : [], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  return out.trim().split('\n').pop() as string;
}

export function mlflowDown(stateDir?: string, purge = false): void {
  execFileSync(path.join(HARNESS, 'down'), [...(purge ? ['--purge'] : []), ...(stateDir ? [stateDir] : [])], {
    timeout: 60_000,
  });
}

/** A server only this test uses (to stop and start it); remember to mlflowDown(dir, true). */
export function ownServer(): { dir: string; uri: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-mlflow-'));
  return { dir, uri: mlflowUp(dir) };
}

/** The Python that has mlflow (for reading runs back with the official client): beside MLFLOW_BIN
 *  when the harness runs the suite against another MLflow (test/run-all.sh: MLflow 2.x). */
export function mlflowPython(): string {
  const bin = process.env.MLFLOW_BIN;
  const candidates = bin
    ? [path.join(path.dirname(bin), 'python')]
    : [path.resolve(__dirname, '../../../.venv/bin/python'), '/tmp/mlvenv/bin/python'];
  for (const p of candidates) if (fs.existsSync(p)) return p;
  throw new Error(`no Python with mlflow in ${candidates.join(', ')}: .ci/install-deps.sh installs it`);
}

/** A run as the official Python client (mlflow.MlflowClient) reads it back: see readback.py. */
export interface PyRun {
  run_id: string;
  run_name: string;
  status: string;
  end_time: number;
  tags: Record<string, string>;
  params: Record<string, string>;
  history: Record<string, [number, number, number][]>;
  artifacts: string[];
}

/** Every run of the job with this job key, read with mlflow.MlflowClient (readback.py). */
export function readBackWithPython(uri: string, experimentId: string, jobKey: string): PyRun[] {
  const out = execFileSync(mlflowPython(), [path.join(__dirname, 'readback.py'), uri, experimentId, jobKey], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return JSON.parse(out) as PyRun[];
}

export const uniqueName = (prefix: string) =>
  `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

/** A stand-in in front of a real server: forwards every request (plain http.request piping, Host
 *  rewritten for MLflow's --allowed-hosts) unless `answer` handles it; over TLS when given a key and
 *  certificate. Counts TCP connections and TLS handshakes, so tests can see reuse. */
export interface StandIn {
  uri: string;
  server: import('http').Server;
  counts: { connections: number; handshakes: number; requests: string[] };
  close(): Promise<void>;
}

export async function standIn(
  target: string,
  opts: {
    tls?: { key: Buffer; cert: Buffer };
    /** Answer the request here (return true) instead of forwarding it. */
    answer?: (req: import('http').IncomingMessage, res: import('http').ServerResponse) => boolean;
    /** Forward the request (its body read first) once this resolves; `done` is called when its
     *  answer has been sent. */
    hold?: (req: import('http').IncomingMessage, body: Buffer) => Promise<{ done: () => void }>;
  } = {},
): Promise<StandIn> {
  const http = await import('http');
  const https = await import('https');
  const up = new URL(target);
  const counts = { connections: 0, handshakes: 0, requests: [] as string[] };
  const handler = (req: import('http').IncomingMessage, res: import('http').ServerResponse) => {
    counts.requests.push(`${req.method} ${req.url}`);
    if (opts.answer?.(req, res)) return void req.resume();
    if (opts.hold) {
      const hold = opts.hold;
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        void hold(req, body).then(({ done }) => {
          res.on('close', done);
          forward(req, res, body);
        });
      });
      return;
    }
    forward(req, res);
  };
  const forward = (
    req: import('http').IncomingMessage,
    res: import('http').ServerResponse,
    body?: Buffer,
  ) => {
    const fwd = http.request(
      {
        host: up.hostname,
        port: up.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: up.host },
      },
      (r) => {
        const { connection: _c, 'keep-alive': _k, ...headers } = r.headers;
        res.writeHead(r.statusCode ?? 502, headers);
        r.pipe(res);
      },
    );
    fwd.on('error', (e) => {
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`stand-in: ${e.message}`);
    });
    // A client that goes away (killed mid-request) closes the forwarded connection too, as the
    // network would: otherwise the server waits for the rest of a body that never comes.
    res.on('close', () => {
      if (!res.writableFinished) fwd.destroy();
    });
    if (body) fwd.end(body);
    else req.pipe(fwd);
  };
  const server = opts.tls ? https.createServer({ ...opts.tls }, handler) : http.createServer(handler);
  server.on('connection', () => counts.connections++);
  server.on('secureConnection', () => counts.handshakes++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as import('net').AddressInfo).port;
  return {
    uri: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    server,
    counts,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A throwaway CA and a certificate for 127.0.0.1 it signed (openssl CLI), in a new temp dir. */
export function testCertificates(): { dir: string; caPem: string; key: Buffer; cert: Buffer } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-tls-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=tl test CA');
  ssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  fs.writeFileSync(
    path.join(dir, 'ext.cnf'),
    'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  );
  ssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  );
  return {
    dir,
    caPem: path.join(dir, 'ca.pem'),
    key: fs.readFileSync(path.join(dir, 'server.key')),
    cert: fs.readFileSync(path.join(dir, 'server.pem')),
  };
}

/** A real `mlflow server --no-serve-artifacts` in its own state dir (artifacts in local paths, the
 *  proxy endpoints answer 503), on a free loopback port with its own sqlite; `artifactRoot` gives its
 *  --default-artifact-root from the state dir (default: <dir>/mlruns). Stop it with
 *  mlflowDown(dir, true), which stops it by its recorded pid. Slow to start (~30 s). */
export async function noArtifactsServer(
  artifactRoot: (dir: string) => string = (dir) => path.join(dir, 'mlruns'),
): Promise<{ dir: string; uri: string }> {
  const { spawn } = await import('child_process');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-mlflow-noart-'));
  const bin = [path.resolve(__dirname, '../../../.venv/bin/mlflow'), '/tmp/mlvenv/bin/mlflow'].find((p) =>
    fs.existsSync(p),
  );
  if (!bin) throw new Error('no mlflow: .ci/run installs it into .venv');
  const net = await import('net');
  const port = await new Promise<number>((r) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as import('net').AddressInfo).port;
      s.close(() => r(p));
    });
  });
  const log = fs.openSync(path.join(dir, 'server.log'), 'a');
  // detached: its own process group, which test/mlflow/down stops by the recorded pid
  const child = spawn(
    bin,
    [
      'server',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--backend-store-uri',
      `sqlite:///${dir}/mlflow.db`,
      '--default-artifact-root',
      artifactRoot(dir),
      '--no-serve-artifacts',
      '--allowed-hosts',
      `127.0.0.1:${port},127.0.0.1`,
      '--workers',
      '1',
    ],
    { detached: true, stdio: ['ignore', log, log] },
  );
  child.unref();
  fs.writeFileSync(path.join(dir, 'pid'), String(child.pid));
  const uri = `http://127.0.0.1:${port}`;
  // a loaded machine takes minutes to start it
  for (let i = 0; i < 480; i++) {
    const ok = await fetch(`${uri}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { dir, uri };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  mlflowDown(dir); // by its recorded pid: nothing of it outlives the test
  throw new Error(
    `mlflow --no-serve-artifacts did not start: ${fs.readFileSync(path.join(dir, 'server.log'), 'utf8').slice(-2000)}`,
  );
}
