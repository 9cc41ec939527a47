// Proxies as MLflow's Python client honours them, through a real proxy process on loopback in front
// of the real MLflow server: http:// servers forward-proxied, https:// ones tunnelled with CONNECT
// (the proxy never sees the token), NO_PROXY honoured, proxy credentials sent only to the proxy.
import * as fs from 'fs';
import { syncRunDir } from '../../../tracking-plugin';
import { TrackLaunchError } from '../../../core';
import { endJob, jobRecord, makeRunDir, polyLog, writeFacts, writeJob } from '../../unit/tracking/fixture';
import { appendLines } from './helpers';
import { startProxy, type TestProxy } from './proxy-server';
import { mlflowUp, standIn, testCertificates, uniqueName, type StandIn } from './server';

jest.setTimeout(120_000);

let uri: string;
let proxy: TestProxy;
let tlsServer: StandIn;
let certs: ReturnType<typeof testCertificates>;
beforeAll(async () => {
  uri = mlflowUp();
  certs = testCertificates();
  tlsServer = await standIn(uri, { tls: { key: certs.key, cert: certs.cert } });
});
afterAll(async () => {
  await tlsServer?.close();
  if (certs) fs.rmSync(certs.dir, { recursive: true, force: true });
});
beforeEach(async () => {
  proxy = await startProxy({ requireAuth: `Basic ${Buffer.from('pu:pp').toString('base64')}` });
});
afterEach(() => proxy.close());

/** What went wrong, whether sync threw it or returned it as the summary's lastError. */
const failure = (r: unknown): string =>
  r instanceof TrackLaunchError ? r.message : String((r as { lastError?: string }).lastError);

async function runDir(): Promise<string> {
  const dir = await makeRunDir();
  await writeJob(dir, jobRecord({ job_id: uniqueName('job') }, 1));
  await appendLines(dir, 0, polyLog(0, 1), 1764669000);
  await writeFacts(dir, 0, 1);
  await endJob(dir, 'COMPLETED', 1764669100);
  return dir;
}

test('an http:// server through HTTP_PROXY: every request goes through the proxy', async () => {
  const s = await syncRunDir(await runDir(), {
    env: { MLFLOW_TRACKING_URI: uri, http_proxy: proxy.url.replace('//', '//pu:pp@') },
    experiment: uniqueName('proxy'),
  });
  expect(s).toMatchObject({ complete: true, pending: 0 });
  expect(s.pointsSent).toBeGreaterThan(0);
  expect(proxy.forwarded.length).toBeGreaterThan(2);
  expect(proxy.forwarded.every((u) => u.startsWith(uri))).toBe(true);
  expect(new Set(proxy.proxyAuth)).toEqual(new Set([`Basic ${Buffer.from('pu:pp').toString('base64')}`]));
});

test('NO_PROXY: the server is reached directly', async () => {
  const s = await syncRunDir(await runDir(), {
    env: { MLFLOW_TRACKING_URI: uri, HTTP_PROXY: proxy.url, NO_PROXY: 'example.org,127.0.0.0/8' },
    experiment: uniqueName('noproxy'),
  });
  expect(s.complete).toBe(true);
  expect(proxy.forwarded.length + proxy.connects.length).toBe(0);
});

test('an https:// server through HTTPS_PROXY: a CONNECT tunnel, and the token never crosses in clear', async () => {
  const token = `canary-${uniqueName('tok')}`;
  const s = await syncRunDir(await runDir(), {
    env: {
      MLFLOW_TRACKING_URI: tlsServer.uri,
      MLFLOW_TRACKING_SERVER_CERT_PATH: certs.caPem,
      MLFLOW_TRACKING_TOKEN: token,
      HTTPS_PROXY: proxy.url.replace('//', '//pu:pp@'),
    },
    experiment: uniqueName('tunnel'),
  });
  expect(s).toMatchObject({ complete: true, pending: 0 });
  const target = new URL(tlsServer.uri).host;
  expect(proxy.connects.length).toBeGreaterThan(0);
  expect(new Set(proxy.connects)).toEqual(new Set([target]));
  expect(proxy.forwarded).toEqual([]);
  expect(tlsServer.counts.requests.length).toBeGreaterThan(2); // they did arrive, through the tunnel
  const relayed = Buffer.concat(proxy.seen);
  expect(relayed.length).toBeGreaterThan(0);
  expect(relayed.includes(token)).toBe(false);
  expect(relayed.includes('loss')).toBe(false); // the payload too is encrypted
});

test('refused: wrong proxy credentials (said, not retried), and MLflow credentials over http:// through a proxy', async () => {
  const bad = await syncRunDir(await runDir(), {
    env: {
      MLFLOW_TRACKING_URI: tlsServer.uri,
      MLFLOW_TRACKING_SERVER_CERT_PATH: certs.caPem,
      HTTPS_PROXY: proxy.url.replace('//', '//pu:wrong@'),
    },
    experiment: uniqueName('badproxy'),
  }).catch((e: unknown) => e);
  expect(bad).toMatchObject({ complete: false, pointsSent: 0 }); // spooled, for a later sync
  expect(failure(bad)).toMatch(/answered 407 to CONNECT/);
  expect(failure(bad)).not.toMatch(/wrong/); // the proxy password is redacted
  expect(proxy.connects.length).toBe(1); // a setting to change: not retried

  const clear = await syncRunDir(await runDir(), {
    env: { MLFLOW_TRACKING_URI: uri, MLFLOW_TRACKING_TOKEN: 'secret-token', HTTP_PROXY: proxy.url },
    experiment: uniqueName('clear'),
  }).catch((e: unknown) => e);
  expect(failure(clear)).toMatch(/would cross the proxy .* unencrypted/);
  expect(proxy.forwarded).toEqual([]);
});
