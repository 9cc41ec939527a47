// Ingesters racing for a stale lock, as separate processes let go at the same instant (all spinning
// until one file appears): exactly one proceeds, every other one is refused naming the winner. Each round's stale lock is the one the
// previous round's winner left when it exited without releasing (a killed ingester). The same race
// for a dead lock of another host: its job has ended and its heartbeat (mtime) is old.
import { spawn, spawnSync } from 'child_process';
import { promises as fs, utimesSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { LOCK_DEAD_AFTER_MS } from '../../../tracking-plugin';
import { endJob, jobRecord, writeJob } from '../../unit/tracking/fixture';
import { compilePlugin } from './helpers';

jest.setTimeout(300_000);
const ROOT = path.resolve(__dirname, '../../..');

interface Racer {
  /** Its outcome line: GOT <pid> or REFUSED <message>. */
  outcome: Promise<string>;
  exited: Promise<void>;
  /** Ends a winner: it exits without releasing the lock (a killed ingester). */
  release(): void;
}

function racer(lockJs: string, dir: string, go: string): { ready: Promise<void>; racer: Racer } {
  // says READY, spins until the go file exists (all rivals are spinning by then), takes the lock; a
  // winner holds it until its stdin ends, so no rival can see it stale within the round
  const code = `const { acquireLock } = require(${JSON.stringify(lockJs)});
    const fs = require('fs');
    console.log('READY');
    while (!fs.existsSync(${JSON.stringify(go)}));
    try { acquireLock(${JSON.stringify(dir)}); console.log('GOT ' + process.pid); process.stdin.on('end', () => process.exit(0)).resume(); }
    catch (e) { console.log('REFUSED ' + e.message); process.exit(0); }`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let onReady: () => void = () => undefined;
  let onOutcome: (line: string) => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const outcome = new Promise<string>((resolve) => (onOutcome = resolve));
  const seen = (): void => {
    if (/^READY$/m.test(out)) onReady();
    const m = /^(GOT|REFUSED) .*$/m.exec(out);
    if (m) onOutcome(m[0]);
  };
  child.stdout.on('data', (d) => ((out += d), seen()));
  child.stderr.on('data', (d) => ((out += d), seen()));
  const exited = new Promise<void>((resolve) =>
    child.on('exit', () => {
      onReady(); // a racer that died before READY: its outcome says so
      onOutcome(`EXITED ${out.trim()}`);
      resolve();
    }),
  );
  return { ready, racer: { outcome, exited, release: () => child.stdin.end() } };
}

/** `rounds` rounds of 6 racers for the lock in `dir`; `prepare` readies the lock before each. */
async function race(dir: string, rounds: number, prepare: (round: number) => Promise<void>): Promise<void> {
  const plugin = compilePlugin(path.join(ROOT, 'test', '.artifacts', 'tracking-js'));
  const lockJs = path.join(path.dirname(plugin), 'ingest', 'lock.js');
  const lock = path.join(dir, 'tracking', 'lock');
  for (let round = 0; round < rounds; round++) {
    await prepare(round);
    const go = path.join(dir, `go-${round}`);
    const started = Array.from({ length: 6 }, () => racer(lockJs, dir, go));
    await Promise.all(started.map((r) => r.ready));
    await fs.writeFile(go, '');
    const racers = started.map((r) => r.racer);
    const outs = await Promise.all(racers.map((r) => r.outcome));
    // each winner exits without releasing: the next round's stale lock (the refused have exited)
    racers.forEach((r, i) => outs[i].startsWith('GOT ') && r.release());
    await Promise.all(racers.map((r) => r.exited));
    const winners = outs.filter((o) => o.startsWith('GOT '));
    expect([round, winners.length, outs]).toEqual([round, 1, expect.any(Array)]);
    for (const o of outs.filter((x) => !x.startsWith('GOT ')))
      expect(o).toMatch(/^REFUSED (another ingest holds .*lock \(pid \d+ on |cannot take the lock)/);
    const holder = JSON.parse(await fs.readFile(lock, 'utf8'));
    expect(`GOT ${holder.pid}`).toBe(winners[0]); // the lock names the one that proceeded
    expect((await fs.readdir(path.dirname(lock))).filter((n) => n.startsWith('lock.'))).toEqual([]);
  }
}

test('6 ingesters race for a stale lock, 8 rounds: exactly one proceeds each time', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tl-lock-race-'));
  const lock = path.join(dir, 'tracking', 'lock');
  await fs.mkdir(path.dirname(lock), { recursive: true });
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  await fs.writeFile(lock, `${dead} ${os.hostname()}\n`); // the older form, of a process that is gone
  try {
    await race(dir, 8, async () => undefined);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test('6 ingesters race for the dead lock of another host, 4 rounds: exactly one takes it over', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tl-lock-race-'));
  const lock = path.join(dir, 'tracking', 'lock');
  await fs.mkdir(path.dirname(lock), { recursive: true });
  await writeJob(dir, jobRecord());
  await endJob(dir, 'COMPLETED');
  const old = new Date(Date.now() - LOCK_DEAD_AFTER_MS - 30_000);
  try {
    await race(dir, 4, async (round) => {
      // what a tracker that died with its allocation leaves: its lock, untouched for over a minute
      const holder = { host: `${os.hostname()}-alloc`, pid: 1000 + round, boot_id: 'b', start: '1' };
      await fs.writeFile(lock, JSON.stringify(holder) + '\n');
      utimesSync(lock, old, old);
    });
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
