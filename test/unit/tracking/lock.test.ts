// The ingest lock: who is provably gone (here or, by its job's end and its heartbeat, on another
// host), the heartbeat, and a takeover that one ingester wins (the race between processes:
// test/integration/tracking/lock-race.test.ts).
import { spawnSync } from 'child_process';
import { promises as fs, statSync, utimesSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  acquireLock,
  isStale,
  LOCK_DEAD_AFTER_MS,
  LOCK_HEARTBEAT_MS,
  me,
  parseHolder,
} from '../../../tracking-plugin/ingest/lock';
import { endJob, jobRecord, makeRunDir, writeJob } from './fixture';

const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid as number;

describe('isStale', () => {
  const self = me();
  it('knows this process, a pid reused by another process, another boot, a dead pid', () => {
    expect(self.boot_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(self.start).toMatch(/^\d+$/);
    expect(isStale(self, self)).toBe(false);
    expect(isStale({ ...self, start: String(Number(self.start) + 1) }, self)).toBe(true); // pid reused
    expect(isStale({ ...self, boot_id: '00000000-0000-0000-0000-000000000000' }, self)).toBe(true);
    expect(isStale({ ...self, pid: deadPid() }, self)).toBe(true);
  });
  it('never takes over what it cannot check: another host, an unreadable lock', () => {
    expect(isStale({ ...self, host: `${self.host}-other`, pid: deadPid() }, self)).toBe(false);
    expect(isStale(parseHolder('{"oops'), self)).toBe(false);
  });
  it('another host: dead only when its job has ended and its heartbeat is older than LOCK_DEAD_AFTER_MS', () => {
    const other = { ...self, host: `${self.host}-other` };
    const old = LOCK_DEAD_AFTER_MS + 1000;
    expect(isStale(other, self, { jobFinal: false, heartbeatAgeMs: 10 * old })).toBe(false);
    expect(isStale(other, self, { jobFinal: true, heartbeatAgeMs: LOCK_DEAD_AFTER_MS - 1000 })).toBe(false);
    expect(isStale(other, self, { jobFinal: true, heartbeatAgeMs: old })).toBe(true);
    // this host's rules ignore the heartbeat: this process is alive whatever its lock's mtime
    expect(isStale(self, self, { jobFinal: true, heartbeatAgeMs: old })).toBe(false);
  });
  it('reads the older "pid host" form', () => {
    const pid = deadPid();
    expect(parseHolder(`${pid} ${os.hostname()}`)).toEqual({ host: os.hostname(), pid });
    expect(isStale(parseHolder(`${pid} ${os.hostname()}`), self)).toBe(true);
    expect(isStale(parseHolder(`${process.pid} ${os.hostname()}`), self)).toBe(false);
  });
});

describe('acquireLock', () => {
  it('takes over a stale lock through a claim whose maker died too, and tidies the claims', async () => {
    const dir = await makeRunDir();
    const lock = path.join(dir, 'tracking', 'lock');
    await fs.mkdir(path.dirname(lock), { recursive: true });
    const stale = JSON.stringify({ ...me(), pid: deadPid() });
    await fs.writeFile(lock, stale + '\n');
    const { createExclusive, lockClaimFile } = await import('../../../core');
    const claimer = JSON.stringify({ ...me(), pid: deadPid() });
    expect(createExclusive(dir, lockClaimFile(dir, stale), claimer + '\n')).toBe(true);
    const release = acquireLock(dir);
    expect(JSON.parse(await fs.readFile(lock, 'utf8'))).toEqual(me());
    expect((await fs.readdir(path.dirname(lock))).filter((n) => n.startsWith('lock.'))).toEqual([]);
    expect(() => acquireLock(dir)).toThrow(/another ingest holds .*lock \(pid \d+ on /);
    await release();
    expect((await fs.readdir(path.dirname(lock))).includes('lock')).toBe(false);
  });

  it('a live claimer of the same stale lock wins: the second is refused', async () => {
    const dir = await makeRunDir();
    const lock = path.join(dir, 'tracking', 'lock');
    await fs.mkdir(path.dirname(lock), { recursive: true });
    const stale = JSON.stringify({ ...me(), pid: deadPid() });
    await fs.writeFile(lock, stale + '\n');
    const { createExclusive, lockClaimFile } = await import('../../../core');
    // alive: this very process
    expect(createExclusive(dir, lockClaimFile(dir, stale), JSON.stringify(me()) + '\n')).toBe(true);
    expect(() => acquireLock(dir)).toThrow(/another ingest holds/);
    expect(await fs.readFile(lock, 'utf8')).toBe(stale + '\n');
  });

  it('refuses to release a lock someone else took over', async () => {
    const dir = await makeRunDir();
    const release = acquireLock(dir);
    await fs.writeFile(path.join(dir, 'tracking', 'lock'), JSON.stringify({ ...me(), pid: 1 }) + '\n');
    await expect(release()).rejects.toThrow(/was taken over while this ingest held it/);
  });
});

describe('a lock held on another host', () => {
  const elsewhere = () => JSON.stringify({ ...me(), host: `${os.hostname()}-other`, pid: 4242 });
  /** A run dir whose lock names a process on another host, its heartbeat `ageMs` old. */
  async function remoteLock(state: 'RUNNING' | 'COMPLETED', ageMs: number) {
    const dir = await makeRunDir();
    await writeJob(dir, jobRecord());
    if (state !== 'RUNNING') await endJob(dir, state);
    const lock = path.join(dir, 'tracking', 'lock');
    await fs.mkdir(path.dirname(lock), { recursive: true });
    const line = elsewhere();
    await fs.writeFile(lock, line + '\n');
    const t = new Date(Date.now() - ageMs);
    utimesSync(lock, t, t);
    return { dir, lock, line };
  }
  const old = LOCK_DEAD_AFTER_MS + 30_000;

  it('is busy while its job runs, however old its heartbeat', async () => {
    const { dir, lock, line } = await remoteLock('RUNNING', 10 * old);
    expect(() => acquireLock(dir)).toThrow(/another ingest holds .*lock \(pid 4242 on .*-other\)/);
    expect(await fs.readFile(lock, 'utf8')).toBe(line + '\n');
  });

  it('is busy after its job ended while its heartbeat is fresh', async () => {
    const { dir, lock, line } = await remoteLock('COMPLETED', 5_000);
    expect(() => acquireLock(dir)).toThrow(/another ingest holds/);
    expect(await fs.readFile(lock, 'utf8')).toBe(line + '\n');
  });

  it('is taken over once its job ended and its heartbeat is old: by one of two ingesters', async () => {
    const { dir, lock } = await remoteLock('COMPLETED', old);
    const release = acquireLock(dir);
    expect(JSON.parse(await fs.readFile(lock, 'utf8'))).toEqual(me());
    expect(() => acquireLock(dir)).toThrow(/another ingest holds .*lock \(pid \d+ on /);
    await release();
    expect((await fs.readdir(path.dirname(lock))).filter((n) => n.startsWith('lock'))).toEqual([]);
  });

  it('a claim on it made by a live rival wins; a claim elsewhere gone quiet is claimed in turn', async () => {
    const { createExclusive, lockClaimFile } = await import('../../../core');
    const raced = await remoteLock('COMPLETED', old);
    expect(
      createExclusive(raced.dir, lockClaimFile(raced.dir, raced.line), JSON.stringify(me()) + '\n'),
    ).toBe(true);
    expect(() => acquireLock(raced.dir)).toThrow(/another ingest holds/);
    expect(await fs.readFile(raced.lock, 'utf8')).toBe(raced.line + '\n');

    const quiet = await remoteLock('COMPLETED', old);
    const claim = lockClaimFile(quiet.dir, quiet.line);
    expect(createExclusive(quiet.dir, claim, elsewhere() + '\n')).toBe(true);
    utimesSync(claim, new Date(Date.now() - old), new Date(Date.now() - old));
    const release = acquireLock(quiet.dir);
    expect(JSON.parse(await fs.readFile(quiet.lock, 'utf8'))).toEqual(me());
    await release();
  });
});

describe('the heartbeat', () => {
  afterEach(() => jest.useRealTimers());

  it('touches the lock every LOCK_HEARTBEAT_MS, its content unchanged, until released', async () => {
    const dir = await makeRunDir();
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    const release = acquireLock(dir);
    const lock = path.join(dir, 'tracking', 'lock');
    const content = await fs.readFile(lock, 'utf8');
    const past = new Date(Math.floor(Date.now() / 1000 - 3600) * 1000); // whole seconds: exact in mtimeMs
    utimesSync(lock, past, past);
    jest.advanceTimersByTime(LOCK_HEARTBEAT_MS - 1);
    expect(statSync(lock).mtimeMs).toBe(past.getTime());
    jest.advanceTimersByTime(1);
    expect(statSync(lock).mtimeMs).toBeGreaterThan(past.getTime() + 3_000_000);
    expect(await fs.readFile(lock, 'utf8')).toBe(content);
    expect(jest.getTimerCount()).toBe(1);
    await release();
    expect(jest.getTimerCount()).toBe(0); // stopped on release
  });

  it('stops touching a lock another ingester took over', async () => {
    const dir = await makeRunDir();
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    const release = acquireLock(dir);
    const lock = path.join(dir, 'tracking', 'lock');
    await fs.writeFile(lock, JSON.stringify({ ...me(), pid: 1 }) + '\n');
    const past = new Date(Math.floor(Date.now() / 1000 - 3600) * 1000); // whole seconds: exact in mtimeMs
    utimesSync(lock, past, past);
    jest.advanceTimersByTime(LOCK_HEARTBEAT_MS);
    expect(statSync(lock).mtimeMs).toBe(past.getTime());
    expect(jest.getTimerCount()).toBe(0);
    await expect(release()).rejects.toThrow(/was taken over while this ingest held it/);
  });

  it("does not keep the process alive (its timer is unref'd)", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const release = acquireLock(await makeRunDir());
    expect(timers()).toBe(before);
    await release();
  });
});
