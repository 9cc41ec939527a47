// Exactly once across placements: a live follower (`ingest --follow`, placement login) and a one-shot
// `ingest` (placement cron), real CLI processes from dist/ started at the same moment, round after
// round, while the ranks' logs grow. Every point is counted at a proxy in front of MLflow: each is
// acknowledged once and never sent again. The loser of each race is refused naming the winner, or
// runs after it. Then the dead lock of a tracker on another host (its job ended, its heartbeat
// old) is taken over by an ingest that sends each point once.
import { spawn } from 'child_process';
import { existsSync, promises as fs, utimesSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { findTrackedRuns, LOCK_DEAD_AFTER_MS, stopTracker, trackerStatus } from '../../../tracking-plugin';
import { endJob, jobRecord, makeRunDir, writeFacts, writeJob } from '../../unit/tracking/fixture';
import { appendLines } from './helpers';
import {
  acknowledged,
  pointId,
  resentAfterAck,
  withCountingProxy,
  type CountingProxy,
} from './counting-proxy';
import { mlflowUp, uniqueName } from './server';

jest.setTimeout(300_000);
const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'bin', 'track-launch.js');
const RANKS = [0, 1, 2];
const KEYS = ['loss', 'acc'];

interface Proc {
  pid: number;
  /** Exit code (null when killed by a signal) and what it said. */
  done: Promise<{ code: number | null; signal: string | null; out: string }>;
  kill(signal: NodeJS.Signals): void;
  /** What it said so far. */
  said(): string;
}

beforeAll(() => {
  if (!existsSync(path.join(ROOT, 'dist'))) throw new Error('dist/ is missing: run `npm run build` first');
});

/** Ingests still running: killed after each test (one that failed leaves its follower behind). */
const running = new Set<Proc>();
afterEach(() => running.forEach((p) => p.kill('SIGKILL')));

function ingest(dir: string, uri: string, experiment: string, args: string[]): Proc {
  const child = spawn(
    process.execPath,
    [CLI, 'ingest', dir, '--experiment', experiment, '--no-report', ...args],
    {
      env: {
        ...process.env,
        MLFLOW_TRACKING_URI: uri,
        XDG_STATE_HOME: path.join(dir, '..', `${path.basename(dir)}-state`),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const done = new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) =>
    child.on('close', (code, signal) => {
      running.delete(proc);
      resolve({ code, signal, out });
    }),
  );
  const proc: Proc = { pid: child.pid as number, done, kill: (s) => child.kill(s), said: () => out };
  running.add(proc);
  return proc;
}

/** `n` steps from `from` on each rank, appended in a few bursts over about a second. */
async function grow(dir: string, from: number, n: number): Promise<void> {
  const bursts = 4;
  for (let b = 0; b < bursts; b++) {
    const lo = from + Math.floor((b * n) / bursts);
    const hi = from + Math.floor(((b + 1) * n) / bursts);
    for (const r of RANKS) {
      const lines = [];
      for (let i = lo; i < hi; i++)
        lines.push(
          JSON.stringify({
            track_launch: 1,
            step: i,
            metrics: { loss: 1 / (i + r + 1), acc: (i % 97) / 97 },
          }),
        );
      await appendLines(dir, r, lines, 1764669000 + lo);
    }
    await new Promise((res) => setTimeout(res, 250));
  }
}

async function until(what: () => string, ok: () => boolean, timeoutMs = 60_000): Promise<void> {
  for (const t0 = Date.now(); !ok(); await new Promise((r) => setTimeout(r, 200)))
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what()}`);
}

const BUSY = /another ingest holds \S+lock \(pid (\d+) on /;

/** Each of the two either ran (exit 0) or was refused naming the other's pid; at least one ran. */
function oneAtATime(round: number, a: Ran, b: Ran): void {
  for (const [me, other] of [
    [a, b],
    [b, a],
  ]) {
    expect([round, /taken over/.test(me.out), me.out]).toEqual([round, false, me.out]);
    if (me.code === 0) continue;
    expect([round, BUSY.exec(me.out)?.[1], me.out]).toEqual([round, String(other.pid), me.out]);
  }
  expect([round, a.code === 0 || b.code === 0, a.out, b.out]).toEqual([round, true, a.out, b.out]);
}
type Ran = { pid: number; code: number | null; out: string };

/** The rank points (not the parent's loss/mean, ...) the proxy saw, each once however often sent. */
const rankPoints = (proxy: CountingProxy) =>
  new Set(proxy.sent.filter((p) => KEYS.includes(p.key)).map(pointId));

/** Every expected rank point reached MLflow, acknowledged; none was sent again after that; none else. */
async function exactlyOnce(proxy: CountingProxy, dir: string, steps: number): Promise<void> {
  const runs = await findTrackedRuns(dir, proxy.uri);
  expect(Object.keys(runs?.rankRunIds ?? {}).sort()).toEqual(RANKS.map(String));
  expect(resentAfterAck(proxy.sent)).toEqual([]);
  const acked = new Set(
    proxy.sent.filter((p) => acknowledged(p.request)).map((p) => `${p.runId} ${p.key} ${p.step}`),
  );
  const missing: string[] = [];
  for (const r of RANKS)
    for (let i = 0; i < steps; i++)
      for (const key of KEYS)
        if (!acked.has(`${runs!.rankRunIds[String(r)]} ${key} ${i}`))
          missing.push(`rank ${r} ${key} step ${i}`);
  expect(missing.slice(0, 10)).toEqual([]);
  expect(rankPoints(proxy).size).toBe(RANKS.length * KEYS.length * steps); // no point with another time
}

test('a follower (login) and a one-shot ingest (cron) race, 5 rounds and the end: each point once', async () => {
  await withCountingProxy(mlflowUp(), async (proxy) => {
    const experiment = uniqueName('placements');
    const dir = await makeRunDir();
    await writeJob(dir, jobRecord({ job_id: uniqueName('placements') }));
    for (const r of RANKS) await writeFacts(dir, r);
    const STEP = 120;
    const ROUNDS = 5;
    let steps = 0;
    let stops = 0;
    for (let round = 0; round <= ROUNDS; round++) {
      const last = round === ROUNDS;
      if (last) await endJob(dir, 'COMPLETED'); // the follower drains, finishes the runs, exits
      const growing = last ? Promise.resolve() : grow(dir, steps, STEP);
      const follower = ingest(dir, proxy.uri, experiment, [
        '--follow',
        '--poll',
        '0.5',
        '--placement',
        'login',
      ]);
      const cron = ingest(dir, proxy.uri, experiment, ['--placement', 'cron']);
      let exited: Ran | undefined;
      void follower.done.then((r) => (exited = { pid: follower.pid, ...r }));
      const c = await cron.done;
      await growing;
      if (!last) steps += STEP;
      let stopped = false;
      if (!last) {
        // a follower that won (or ran after the one-shot) sends what was appended meanwhile; then
        // it is stopped as cancel does (every other time) or by Ctrl-C, its cycle ended, its lock released
        const all = RANKS.length * KEYS.length * steps;
        await until(
          () =>
            `round ${round}: the follower to send all ${all} rank points (${rankPoints(proxy).size} sent) or exit; it said:\n${follower.said().slice(-2000)}\nthe one-shot said:\n${c.out.slice(-2000)}`,
          () => !!exited || rankPoints(proxy).size >= all,
        );
        if (!exited) {
          stopped = true;
          if (stops++ % 2 === 0)
            expect(stopTracker(dir, 'SIGINT')).toMatchObject({
              signalled: true,
              holder: { pid: follower.pid, placement: 'login' },
            });
          else follower.kill('SIGINT');
        }
      }
      const f = { pid: follower.pid, ...(await follower.done) };
      expect(trackerStatus(dir)).toBeUndefined(); // both have ended: the lock is released
      oneAtATime(round, stopped ? { ...f, code: 0 } : f, { pid: cron.pid, ...c });
    }
    const again = await ingest(dir, proxy.uri, experiment, ['--placement', 'manual']).done;
    expect([again.code, again.out]).toEqual([0, again.out]);
    await exactlyOnce(proxy, dir, steps);
  });
});

test("a dead tracker's lock on another host (job ended, heartbeat old) is taken over: each point once", async () => {
  await withCountingProxy(mlflowUp(), async (proxy) => {
    const experiment = uniqueName('remote-takeover');
    const dir = await makeRunDir();
    await writeJob(dir, jobRecord({ job_id: uniqueName('remote') }));
    for (const r of RANKS) await writeFacts(dir, r);
    await grow(dir, 0, 200);
    await endJob(dir, 'COMPLETED');
    const lock = path.join(dir, 'tracking', 'lock');
    await fs.mkdir(path.dirname(lock), { recursive: true });
    const holder = { host: `${os.hostname()}-batch`, pid: 4242, boot_id: 'b', start: '1' };
    await fs.writeFile(lock, JSON.stringify(holder) + '\n');
    // its heartbeat still fresh: busy, nothing sent
    const fresh = await ingest(dir, proxy.uri, experiment, ['--placement', 'cron']).done;
    expect(BUSY.exec(fresh.out)?.[1]).toBe('4242');
    expect(proxy.sent).toEqual([]);
    expect(trackerStatus(dir)).toMatchObject({ host: holder.host, alive: 'unknown' });
    // a minute and more without a heartbeat: dead; taken over and everything sent once
    const old = new Date(Date.now() - LOCK_DEAD_AFTER_MS - 5_000);
    utimesSync(lock, old, old);
    expect(trackerStatus(dir)).toMatchObject({ host: holder.host, alive: false });
    const t0 = Date.now() / 1000;
    const took = await ingest(dir, proxy.uri, experiment, ['--placement', 'cron']).done;
    expect([took.code, took.out]).toEqual([0, took.out]);
    await exactlyOnce(proxy, dir, 200);
    expect(trackerStatus(dir)).toBeUndefined();
    const rec = JSON.parse(await fs.readFile(path.join(dir, 'tracking', 'tracker.json'), 'utf8'));
    expect(rec).toMatchObject({ placement: 'cron', host: os.hostname(), points_pending: 0 });
    expect(rec.last_sent_at).toBeGreaterThan(t0);
  });
});
