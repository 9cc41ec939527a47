// Shared helpers for the benchmark suite (npm run bench): timing, statistics, machine load, results.
import { execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const ROOT = path.resolve(__dirname, '..', '..'); // dist/bench -> repo root
export const RESULTS = path.join(ROOT, 'bench', 'results');

export interface BenchOptions {
  quick: boolean;
  /** Scratch directory for generated inputs (deleted at the end). */
  tmp: string;
  /** The tracker benchmark's steady-state window, s (--tracker-window), and its repetitions (--tracker-reps). */
  trackerWindowS?: number;
  trackerReps?: number;
}

export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

export function median(xs: number[]): number {
  return percentile(xs, 50);
}

/** Nearest-rank percentile (p in 0..100) of a non-empty list. */
export function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i];
}

export const round = (x: number, digits = 3): number => Number(x.toPrecision(digits));

/** The machine's load and what else runs on it: the suite runs on a shared 2-core machine. */
export function machine(): Record<string, unknown> {
  return {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
    mem_gib: round(os.totalmem() / 2 ** 30, 3),
    loadavg: os.loadavg().map((x) => round(x, 3)),
    node: process.version,
    at: new Date().toISOString(),
  };
}

/** Writes bench/results/<name>.json, formatted by the project's prettier (so `npm run lint` stays clean). */
export async function writeResult(name: string, data: unknown): Promise<string> {
  fs.mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `${name}.json`);
  let text = JSON.stringify(data, null, 2) + '\n';
  try {
    const prettier = (await import('prettier')) as unknown as {
      format(t: string, o: object): Promise<string>;
      resolveConfig(f: string): Promise<object | null>;
    };
    text = await prettier.format(text, { ...((await prettier.resolveConfig(file)) ?? {}), parser: 'json' });
  } catch {
    // prettier is a dev dependency; without it the plain JSON is fine
  }
  fs.writeFileSync(file, text);
  return file;
}

export function log(...parts: unknown[]): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${parts.join(' ')}\n`);
}

export interface ProcResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Run a process to its end; stdout/stderr kept (capped), wall time measured. */
export function runProc(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string } = {},
): Promise<ProcResult> {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const child = spawn(cmd, args, {
      cwd: opts.cwd ?? ROOT,
      env: opts.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const cap = (s: string, d: Buffer) => (s.length > 1 << 20 ? s : s + d.toString());
    child.stdout.on('data', (d: Buffer) => (stdout = cap(stdout, d)));
    child.stderr.on('data', (d: Buffer) => (stderr = cap(stderr, d)));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
    child.on('error', reject);
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: nowMs() - t0 });
    });
    child.stdin.end(opts.input ?? '');
  });
}

export function sh(cmd: string, env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync('bash', ['-c', cmd], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Environment with the test cluster's Slurm settings (test/cluster/env.sh). */
export function clusterEnv(): NodeJS.ProcessEnv {
  const out = sh('source test/cluster/env.sh && env -0');
  const env: NodeJS.ProcessEnv = {};
  for (const kv of out.split('\0')) {
    const i = kv.indexOf('=');
    if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return env;
}

export interface Target {
  what: string;
  target: string;
  measured: string;
  met: boolean | null;
}
