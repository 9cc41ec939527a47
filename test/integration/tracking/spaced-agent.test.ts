// New connections to the tracking server are opened CONNECT_GAP_MS apart (so that a multi-worker
// server's workers each get some), keep-alive reuse opens none, and a deferred connection's failure
// reaches the request. When a connection is opened is seen at node's http.Agent (the call into net),
// what arrives at a loopback server that holds every answer.
import * as http from 'http';
import * as net from 'net';
import type { AddressInfo } from 'net';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { CONNECT_GAP_MS, spaceConnections } from '../../../tracking-plugin/mlflow/spaced-agent';

let server: http.Server;
let uri = '';
let accepted = 0;
let opened: number[] = [];
const HOLD_MS = 300; // every answer waits, so that concurrent requests need sockets of their own
const nodeCreate = http.Agent.prototype.createConnection;

beforeAll(async () => {
  // spaceConnections wraps the agent's createConnection, which is this one until the agent has its own
  http.Agent.prototype.createConnection = function (this: http.Agent, ...args) {
    opened.push(Date.now());
    return nodeCreate.apply(this, args);
  };
  server = http.createServer((req, res) => {
    req.resume();
    setTimeout(() => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ experiment: { experiment_id: '7', name: 'e' } }));
    }, HOLD_MS);
  });
  server.on('connection', () => accepted++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  http.Agent.prototype.createConnection = nodeCreate;
  server.closeAllConnections(); // a request a broken agent left waiting must not keep the run alive
  return new Promise((r) => server.close(r));
});
beforeEach(() => {
  accepted = 0;
  opened = [];
});

/** How long after the first each connection was opened. The first opens as it is asked for; a
 *  stalled event loop may open two later ones at once, late: the promise is that the k-th comes no
 *  earlier than k gaps after the first (less a millisecond: Date.now() moves in whole ones). */
const sinceFirst = (t: number[]) => t.map((x) => x - t[0]);

function get(agent: http.Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

test('a burst of 4 requests opens its 4 connections CONNECT_GAP_MS apart; reuse opens none', async () => {
  const c = await MlflowClient.connect(uri, {});
  const burst = () => Promise.all([1, 2, 3, 4].map(() => c.getExperimentByName('e')));
  expect((await burst()).map((e) => e?.experiment_id)).toEqual(['7', '7', '7', '7']);
  expect(opened.length).toBe(4);
  expect(accepted).toBe(4);
  sinceFirst(opened).forEach((ms, k) => expect(ms).toBeGreaterThanOrEqual(k * CONNECT_GAP_MS - 1));
  // the same burst again: the 4 kept-alive sockets are reused, so nothing is opened or made to wait
  await burst();
  expect(opened.length).toBe(4);
  expect(accepted).toBe(4);
});

test('control: a plain agent opens the same burst at once (what the spacing changes)', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  try {
    await Promise.all([1, 2, 3, 4].map(() => get(agent, `${uri}/x`)));
    expect(opened.length).toBe(4);
    expect(accepted).toBe(4);
    expect(sinceFirst(opened)[3]).toBeLessThan(3 * CONNECT_GAP_MS - 1);
  } finally {
    agent.destroy();
  }
});

test('an agent that hands its socket to the callback later (as TunnelAgent does) is spaced too', async () => {
  const late: number[] = [];
  class LateAgent extends http.Agent {
    override createConnection(
      options: http.ClientRequestArgs,
      callback?: (err: Error | null, socket: net.Socket) => void,
    ): undefined {
      late.push(Date.now());
      const socket = net.connect({ host: options.host ?? undefined, port: Number(options.port) });
      setTimeout(() => callback?.(null, socket), 5);
      return undefined;
    }
  }
  const agent = spaceConnections(new LateAgent({ keepAlive: true }), 50);
  try {
    expect(await Promise.all([1, 2, 3].map(() => get(agent, `${uri}/x`)))).toEqual([200, 200, 200]);
    expect(late.length).toBe(3);
    expect(accepted).toBe(3);
    sinceFirst(late).forEach((ms, k) => expect(ms).toBeGreaterThanOrEqual(k * 50 - 1));
  } finally {
    agent.destroy();
  }
});

test('a timer that fires early does not open a connection early', async () => {
  // node's timers count whole milliseconds: one set for the gap can fire a millisecond before it (CI
  // saw 48 ms for 50). Here every timer fires at 80 % of its delay.
  const realSetTimeout = global.setTimeout;
  global.setTimeout = ((fn: () => void, ms?: number) =>
    realSetTimeout(fn, Math.floor((ms ?? 0) * 0.8))) as typeof setTimeout;
  const agent = spaceConnections(new http.Agent({ keepAlive: true }), 50);
  try {
    const answers = Promise.all([1, 2, 3].map(() => get(agent, `${uri}/x`)));
    global.setTimeout = realSetTimeout; // the server's and the client's own timers run as usual
    expect(await answers).toEqual([200, 200, 200]);
    expect(opened.length).toBe(3);
    sinceFirst(opened).forEach((ms, k) => expect(ms).toBeGreaterThanOrEqual(k * 50 - 1));
  } finally {
    global.setTimeout = realSetTimeout;
    agent.destroy();
  }
});

test('a wall clock set back does not hold new connections', async () => {
  const realNow = Date.now;
  const agent = spaceConnections(new http.Agent({ keepAlive: true }), 50);
  try {
    await get(agent, `${uri}/x`); // one connection opened, then the clock is set back an hour
    Date.now = () => realNow() - 3_600_000;
    const t0 = performance.now();
    // one request reuses the kept-alive socket, two open new ones, 50 ms apart (not an hour)
    expect(await Promise.all([1, 2, 3].map(() => get(agent, `${uri}/x`)))).toEqual([200, 200, 200]);
    expect(opened.length).toBe(3);
    expect(performance.now() - t0).toBeLessThan(HOLD_MS + 2 * 50 + 1000);
  } finally {
    Date.now = realNow;
    agent.destroy();
  }
});

test("a deferred connection's failure reaches its request", async () => {
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  const agent = spaceConnections(new http.Agent({ keepAlive: true }), 50);
  try {
    const results = await Promise.allSettled([1, 2, 3].map(() => get(agent, `http://127.0.0.1:${port}/`)));
    expect(opened.length).toBe(3);
    expect(sinceFirst(opened)[2]).toBeGreaterThanOrEqual(2 * 50 - 1);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect(((r as PromiseRejectedResult).reason as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    }
  } finally {
    agent.destroy();
  }
});
