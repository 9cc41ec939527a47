// Helpers of the local-executor end-to-end tests (local-executor, local-kill): the built CLI, the
// job record, waiting, and killing what a failed test left behind.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const CLI = path.join(ROOT, 'bin', 'track-launch.js');

/** The built CLI, run to its end from the repository root. */
export const runCli = (args: string[], env: NodeJS.ProcessEnv, timeoutMs?: number) =>
  spawnSync(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    ...(timeoutMs ? { timeout: timeoutMs } : {}),
  });

/** A run directory's job.json. */
export const readJob = (runDir: string) => JSON.parse(fs.readFileSync(path.join(runDir, 'job.json'), 'utf8'));

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `ok` every 100 ms; throws naming `what` after `ms`. */
export async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** SIGKILL each of these processes (those already gone are skipped). */
export function sigkillAll(pids: Iterable<number>): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
