// Ingesters racing for a stale lock, as separate processes started at the same instant: exactly one
// proceeds, every other one is refused naming the winner. Each round's stale lock is the one the
// previous round's winner left when it exited without releasing (a killed ingester).
import { spawn, spawnSync } from 'child_process';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compilePlugin } from './helpers';

jest.setTimeout(300_000);
const ROOT = path.resolve(__dirname, '../../..');

function racer(lockJs: string, dir: string, goAt: number): Promise<string> {
  // busy-waits for the same instant as its rivals, takes the lock, holds it a while, exits without releasing
  const code = `const { acquireLock } = require(${JSON.stringify(lockJs)});
    while (Date.now() < ${goAt});
    try { acquireLock(${JSON.stringify(dir)}); console.log('GOT ' + process.pid); setTimeout(() => process.exit(0), 1500); }
    catch (e) { console.log('REFUSED ' + e.message); }`;
  const child = spawn(process.execPath, ['-e', code]);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) => child.on('exit', () => resolve(out.trim())));
}

test('6 ingesters race for a stale lock, 8 rounds: exactly one proceeds each time', async () => {
  const plugin = compilePlugin(path.join(ROOT, 'test', '.artifacts', 'tracking-js'));
  const lockJs = path.join(path.dirname(plugin), 'ingest', 'lock.js');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tl-lock-race-'));
  const lock = path.join(dir, 'tracking', 'lock');
  await fs.mkdir(path.dirname(lock), { recursive: true });
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  await fs.writeFile(lock, `${dead} ${os.hostname()}\n`); // the older form, of a process that is gone
  try {
    for (let round = 0; round < 8; round++) {
      const goAt = Date.now() + 1500; // every racer is started and spinning by then
      const outs = await Promise.all(Array.from({ length: 6 }, () => racer(lockJs, dir, goAt)));
      const winners = outs.filter((o) => o.startsWith('GOT '));
      expect([round, winners.length, outs]).toEqual([round, 1, expect.any(Array)]);
      for (const o of outs.filter((x) => !x.startsWith('GOT ')))
        expect(o).toMatch(/^REFUSED (another ingest holds .*lock \(pid \d+ on |cannot take the lock)/);
      const holder = JSON.parse(await fs.readFile(lock, 'utf8'));
      expect(`GOT ${holder.pid}`).toBe(winners[0]); // the lock names the one that proceeded
      expect((await fs.readdir(path.dirname(lock))).filter((n) => n.startsWith('lock.'))).toEqual([]);
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
