// The ingest lock: who is provably gone, and a takeover that one ingester wins (the race between
// processes: test/integration/tracking/lock-race.test.ts).
import { spawnSync } from 'child_process';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { acquireLock, isStale, me, parseHolder } from '../../../tracking-plugin/ingest/lock';
import { makeRunDir } from './fixture';

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
