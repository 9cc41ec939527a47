// tracking/tracker.json and what status/cancel read from it with the lock: who holds the lock, where
// it runs, whether it is alive, what it sent; and a stop that never signals a reused pid.
import { spawn, type ChildProcess } from 'child_process';
import { promises as fs, utimesSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { processStart } from '../../../core';
import { Ingester } from '../../../tracking-plugin/ingest/ingester';
import { acquireLock, LOCK_DEAD_AFTER_MS, me } from '../../../tracking-plugin/ingest/lock';
import { stopTracker, trackerStatus } from '../../../tracking-plugin/ingest/tracker';
import { appendLines, jobRecord, makeRunDir, polyLog, writeJob } from './fixture';

const trackerJson = (dir: string) => path.join(dir, 'tracking', 'tracker.json');
const lockFile = (dir: string) => path.join(dir, 'tracking', 'lock');

async function writeLock(dir: string, holder: object, ageMs = 0): Promise<void> {
  await fs.mkdir(path.join(dir, 'tracking'), { recursive: true });
  await fs.writeFile(lockFile(dir), JSON.stringify(holder) + '\n');
  const t = new Date(Date.now() - ageMs);
  utimesSync(lockFile(dir), t, t);
}

describe('tracker.json', () => {
  it('is written by the holder when it takes the lock and after each cycle, with its placement', async () => {
    const dir = await makeRunDir();
    await writeJob(dir, jobRecord());
    for (const r of [0, 1, 2]) await appendLines(dir, r, polyLog(r), 1764669000);
    const t0 = Date.now() / 1000;
    const ing = await Ingester.open(dir, { offline: true, placement: 'cron' });
    const first = JSON.parse(await fs.readFile(trackerJson(dir), 'utf8'));
    expect(first).toEqual({
      placement: 'cron',
      ...me(),
      started_at: expect.any(Number),
      updated_at: first.started_at,
      points_pending: 0,
      undelivered: { points: 0, params: 0, tags: 0, files: 0 },
      lag_ms: 0,
    });
    expect(first.started_at).toBeGreaterThanOrEqual(Math.floor(t0));
    expect(trackerStatus(dir)).toMatchObject({
      placement: 'cron',
      host: os.hostname(),
      pid: process.pid,
      alive: true,
    });
    await ing.cycle(true);
    await ing.close();
    expect(trackerStatus(dir)).toBeUndefined(); // released: no tracker
  });

  it('holds what is pending after a cycle that could not reach the server', async () => {
    const dir = await makeRunDir();
    await writeJob(dir, jobRecord());
    for (const r of [0, 1, 2]) await appendLines(dir, r, polyLog(r), 1764669000);
    const ing = await Ingester.open(dir, {
      trackingUri: 'http://127.0.0.1:1',
      maxRetries: 0,
      placement: 'job',
    });
    const p = await ing.cycle(true);
    const rec = JSON.parse(await fs.readFile(trackerJson(dir), 'utf8'));
    // none sent, none lost: 3 ranks x 10 epochs of loss, and the parent's loss/mean, min and max at each epoch
    expect(rec).toMatchObject({ placement: 'job', points_pending: 3 * 10 + 3 * 10, lag_ms: p.lagMs });
    expect(rec.last_sent_at).toBeUndefined();
    expect(trackerStatus(dir)).toMatchObject({ placement: 'job', pointsPending: 60, alive: true });
    await ing.close();
  });

  it('a damaged record of an earlier holder does not stop the ingest: it is replaced, and said', async () => {
    const dir = await makeRunDir();
    await writeJob(dir, jobRecord());
    for (const r of [0, 1, 2]) await appendLines(dir, r, polyLog(r), 1764669000);
    await fs.mkdir(path.dirname(trackerJson(dir)), { recursive: true });
    await fs.writeFile(trackerJson(dir), JSON.stringify({ placement: 'moon', host: 'h', pid: 1 }));
    const ing = await Ingester.open(dir, { offline: true, placement: 'cron' });
    await ing.cycle(true);
    expect(trackerStatus(dir)).toMatchObject({ placement: 'cron', pid: process.pid });
    expect(ing.summary().warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/tracker\.json: placement is "moon".*replaced/)]),
    );
    await ing.close();
  });

  it('defaults to manual', async () => {
    const dir = await makeRunDir();
    const ing = await Ingester.open(dir, { offline: true });
    expect(trackerStatus(dir)?.placement).toBe('manual');
    await ing.close();
  });
});

describe('trackerStatus', () => {
  it('reports the fields of a tracker.json that names the holder, and nothing of one that does not', async () => {
    const dir = await makeRunDir();
    const release = acquireLock(dir);
    const rec = {
      placement: 'login',
      ...me(),
      started_at: 100,
      updated_at: 200,
      last_sent_at: 150,
      points_pending: 7,
      undelivered: { points: 1, params: 2, tags: 0, files: 3 },
      lag_ms: 1234,
    };
    await fs.writeFile(trackerJson(dir), JSON.stringify(rec));
    expect(trackerStatus(dir)).toEqual({
      placement: 'login',
      host: os.hostname(),
      pid: process.pid,
      alive: true,
      heartbeatAgeS: 0,
      lastSentAt: 150,
      pointsPending: 7,
      undelivered: { points: 1, params: 2, tags: 0, files: 3 },
      lagMs: 1234,
      updatedAt: 200,
    });
    // an earlier holder's record, a half-written one
    await fs.writeFile(trackerJson(dir), JSON.stringify({ ...rec, pid: rec.pid + 1 }));
    expect(trackerStatus(dir)).toEqual({
      placement: 'unknown',
      host: os.hostname(),
      pid: process.pid,
      alive: true,
      heartbeatAgeS: 0,
    });
    await fs.writeFile(trackerJson(dir), '{"placement": "login", "host');
    expect(trackerStatus(dir)?.placement).toBe('unknown');
    // fields of the wrong type: refused, the file and the field named
    await fs.writeFile(
      trackerJson(dir),
      JSON.stringify({ ...rec, placement: 'moon', lag_ms: -1, undelivered: 'x' }),
    );
    expect(() => trackerStatus(dir)).toThrow(
      expect.objectContaining({
        code: 'RUN_DIR',
        message: expect.stringMatching(/tracker\.json: placement is "moon"/),
      }),
    );
    await fs.writeFile(trackerJson(dir), JSON.stringify({ ...rec, lag_ms: -1 }));
    expect(() => trackerStatus(dir)).toThrow(
      /tracker\.json: lag_ms is -1; it must be a whole number, 0 or more/,
    );
    // a link instead of the file is refused, not followed
    await fs.rm(trackerJson(dir));
    await fs.symlink('/etc/passwd', trackerJson(dir));
    expect(() => trackerStatus(dir)).toThrow(/tracker\.json/);
    await fs.rm(trackerJson(dir));
    await release();
  });

  it('another host: alive unknown while its heartbeat is fresh, false once older than LOCK_DEAD_AFTER_MS', async () => {
    const dir = await makeRunDir();
    const other = { ...me(), host: `${os.hostname()}-other`, pid: 4242 };
    await writeLock(dir, other, 5_000);
    expect(trackerStatus(dir)).toMatchObject({
      host: other.host,
      pid: 4242,
      alive: 'unknown',
      heartbeatAgeS: 5,
    });
    await writeLock(dir, other, LOCK_DEAD_AFTER_MS + 5_000);
    expect(trackerStatus(dir)).toMatchObject({ alive: false, heartbeatAgeS: LOCK_DEAD_AFTER_MS / 1000 + 5 });
  });

  it('this host: false for a gone pid or a reused one; unknown for a lock that names no process', async () => {
    const dir = await makeRunDir();
    await writeLock(dir, { ...me(), start: String(Number(me().start) + 1) });
    expect(trackerStatus(dir)?.alive).toBe(false);
    await writeLock(dir, { oops: 1 });
    expect(trackerStatus(dir)).toMatchObject({ alive: 'unknown', host: 'unknown', pid: 0 });
  });
});

describe('stopTracker', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const sleeper = async (): Promise<{ pid: number; exited: Promise<string | null> }> => {
    child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const exited = new Promise<string | null>((r) => child!.on('exit', (_c, sig) => r(sig)));
    await new Promise((r) => child!.on('spawn', r));
    return { pid: child.pid as number, exited };
  };

  it('signals the holder on this host whose pid still has the recorded start time', async () => {
    const dir = await makeRunDir();
    const { pid, exited } = await sleeper();
    await writeLock(dir, { ...me(), pid, start: processStart(pid) });
    const r = stopTracker(dir);
    expect(r).toMatchObject({ signalled: true, holder: { pid, alive: true } });
    expect(await exited).toBe('SIGTERM');
  });

  it('never signals a reused pid, a holder elsewhere, one without a start time, or no holder', async () => {
    const dir = await makeRunDir();
    expect(stopTracker(dir)).toEqual({ signalled: false, why: 'no ingest holds the lock' });
    const { pid } = await sleeper();
    const start = processStart(pid) as string;
    await writeLock(dir, { ...me(), pid, start: String(Number(start) + 1) });
    expect(stopTracker(dir)).toMatchObject({
      signalled: false,
      why: expect.stringMatching(/has ended \(or is another process now\)/),
    });
    await writeLock(dir, { host: os.hostname(), pid });
    expect(stopTracker(dir).why).toMatch(/cannot be told from a reused pid/);
    await writeLock(dir, { ...me(), host: 'elsewhere', pid, start });
    expect(stopTracker(dir).why).toMatch(/runs on elsewhere .*stop it there/);
    expect(processStart(pid)).toBe(start); // still running: none of these signalled it
  });
});
