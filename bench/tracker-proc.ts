// The tracker under measurement: `track-launch ingest --follow <run-dir>` as its own process (the
// built CLI, as the login follower and the in-allocation tracker run it), and its CPU time and memory
// from /proc: utime + stime (+ its waited-for children's) from /proc/<pid>/stat, VmRSS and VmHWM from
// /proc/<pid>/status.
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ROOT } from './common';

const TICKS_PER_S = 100; // USER_HZ on Linux

export interface Follower {
  child: ChildProcess;
  pid: number;
  stderr: () => string;
  exited: Promise<number | null>;
}

export function startFollower(runDir: string, uri: string, experiment: string, pollS?: number): Follower {
  const args = [path.join(ROOT, 'bin', 'track-launch.js'), 'ingest', runDir, '--follow', '--no-report'];
  args.push('--tracking-uri', uri, '--experiment', experiment);
  if (pollS !== undefined) args.push('--poll', String(pollS));
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-20_000);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  if (child.pid === undefined) throw new Error('could not start track-launch ingest --follow');
  return { child, pid: child.pid, stderr: () => err, exited };
}

/** CPU seconds the process used so far (its own, and its waited-for children's). */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // fields after the command name (which may hold spaces) in parentheses: state is field 3
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime, cutime, cstime] = [f[11], f[12], f[13], f[14]].map(Number);
  return (utime + stime + cutime + cstime) / TICKS_PER_S;
}

/** VmRSS and VmHWM (the peak since the process started), MiB. */
export function memoryMiB(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}

/** Waits for the follower's end (after the job's end), at most `ms`; kills it after that. */
export async function awaitEnd(f: Follower, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ms)));
  const code = await Promise.race([f.exited, late]);
  clearTimeout(timer);
  if (code !== 'late') return code;
  f.child.kill('SIGKILL');
  await f.exited;
  throw new Error(
    `the follower did not end within ${ms / 1000} s of the job's end; stderr: ${f.stderr().slice(-1000)}`,
  );
}
