// Reading a job's runs back from MLflow, and writing logs the way a running job does.
import { execFileSync } from 'child_process';
import { promises as fs } from 'fs';
import * as path from 'path';
import { main } from '../../../cli/main';
import { splitBatch } from '../../../tracking-plugin/mlflow/batch';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { fromWire } from '../../../tracking-plugin/mlflow/values';
import type { Run } from '../../../tracking-plugin/mlflow/types';
import type { MetricPoint } from '../../../tracking-plugin/types';
import { appendLines, makeRunDir } from '../../unit/tracking/fixture';
import { uniqueName } from './server';

export const tag = (r: Run, k: string) => r.data.tags?.find((t) => t.key === k)?.value;

export interface JobRuns {
  all: Run[];
  parent: Run;
  ranks: Map<number, Run>;
}

/** All runs of the job with this job key (there must be one parent, one run per rank). */
export async function jobRuns(client: MlflowClient, experimentId: string, jobKey: string): Promise<JobRuns> {
  const all = await client.searchAllRuns([experimentId], `tags.\`track_launch.job_key\` = '${jobKey}'`);
  const parents = all.filter((r) => tag(r, 'track_launch.role') === 'parent');
  if (parents.length !== 1) throw new Error(`expected one parent run, found ${parents.length}`);
  const ranks = new Map<number, Run>();
  for (const r of all.filter((x) => tag(x, 'track_launch.role') === 'rank')) {
    const n = Number(tag(r, 'rank'));
    if (ranks.has(n)) throw new Error(`two runs for rank ${n}`);
    ranks.set(n, r);
  }
  return { all, parent: parents[0], ranks };
}

/** Everything given, in as many log-batch requests as MLflow's limits need, sent in order. */
export async function logBatch(
  client: MlflowClient,
  runId: string,
  input: Parameters<typeof splitBatch>[1],
): Promise<void> {
  for (const body of splitBatch(runId, input)) await client.logBatchRequest(body);
}

/** A metric's whole history, page after page. */
export async function metricHistory(
  client: MlflowClient,
  runId: string,
  key: string,
): Promise<MetricPoint[]> {
  const out: MetricPoint[] = [];
  let pageToken: string | undefined;
  do {
    const r = await client.http.request<{
      metrics?: { key: string; value: unknown; timestamp: string | number; step: string | number }[];
      next_page_token?: string;
    }>('GET', '/api/2.0/mlflow/metrics/get-history', {
      query: { run_id: runId, metric_key: key, max_results: 25000, page_token: pageToken },
    });
    for (const m of r.metrics ?? [])
      out.push({
        key: m.key,
        value: fromWire(m.value),
        timestamp: Number(m.timestamp),
        step: Number(m.step ?? 0),
      });
    pageToken = r.next_page_token || undefined;
  } while (pageToken);
  return out;
}

/** A history as sorted [step, value, timestamp] triples, for exact comparisons. */
export async function history(
  client: MlflowClient,
  runId: string,
  key: string,
): Promise<[number, number, number][]> {
  const h = await metricHistory(client, runId, key);
  return h
    .map((p): [number, number, number] => [p.step, p.value, p.timestamp])
    .sort((a, b) => a[0] - b[0] || a[2] - b[2] || a[1] - b[1]);
}

export const triples = (ps: MetricPoint[], key: string) =>
  ps
    .filter((p) => p.key === key)
    .map((p): [number, number, number] => [p.step, p.value, p.timestamp])
    .sort((a, b) => a[0] - b[0] || a[2] - b[2] || a[1] - b[1]);

/** Writes a rank's log in pieces like a live job: a line may arrive in two writes, .out.ts after .out. */
export async function writeSlowly(
  dir: string,
  rank: number,
  lines: string[],
  t0: number,
  pauseMs: number,
): Promise<void> {
  const fs = await import('fs/promises');
  const out = path.join(dir, 'logs', `rank-${rank}.out`);
  const ts = path.join(dir, 'logs', `rank-${rank}.out.ts`);
  for (let i = 0; i < lines.length; i++) {
    const half = Math.floor(lines[i].length / 2);
    await fs.appendFile(out, lines[i].slice(0, half));
    await new Promise((r) => setTimeout(r, pauseMs / 2));
    await fs.appendFile(out, lines[i].slice(half) + '\n');
    await new Promise((r) => setTimeout(r, pauseMs / 2));
    await fs.appendFile(ts, `${t0 + i}.${String(100000 + rank * 1000 + (i % 1000)).slice(1)}\n`);
  }
}

export { appendLines };

/** Compile the tracking plugin to plain JS (for child processes that get killed). */
export function compilePlugin(outDir: string): string {
  const root = path.resolve(__dirname, '../../..');
  execFileSync(
    path.join(root, 'node_modules/.bin/tsc'),
    [
      path.join(root, 'tracking-plugin/index.ts'),
      '--outDir',
      outDir,
      '--rootDir',
      root,
      '--module',
      'commonjs',
      '--target',
      'ES2022',
      '--esModuleInterop',
      '--skipLibCheck',
      '--strict',
      '--types',
      'node',
      '--moduleResolution',
      'node',
      '--resolveJsonModule',
    ],
    { stdio: 'pipe', timeout: 120_000 },
  );
  return path.join(outDir, 'tracking-plugin', 'index.js');
}

const POLYNOMIAL_3 = path.resolve(__dirname, '../../fixtures/runs/polynomial-3');

/** The real 3-rank run, as a new job (its own job id, so its runs are its own on the shared server). */
export async function copyRun(prefix: string): Promise<string> {
  const dir = await makeRunDir();
  const job = JSON.parse(await fs.readFile(path.join(POLYNOMIAL_3, 'job.json'), 'utf8'));
  await fs.writeFile(path.join(dir, 'job.json'), JSON.stringify({ ...job, job_id: uniqueName(prefix) }));
  for (const f of await fs.readdir(path.join(POLYNOMIAL_3, 'logs')))
    await fs.copyFile(path.join(POLYNOMIAL_3, 'logs', f), path.join(dir, 'logs', f));
  return dir;
}

/** The CLI in process: what it wrote on stderr and the exit status it set. */
export async function cliInProcess(args: string[]): Promise<{ stderr: string; exitCode: number }> {
  let stderr = '';
  const w = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  const saved = process.exitCode;
  process.exitCode = undefined;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => ((stderr += s), true)) as typeof process.stderr.write;
  try {
    await main(args);
    return { stderr, exitCode: Number(process.exitCode ?? 0) };
  } finally {
    process.stdout.write = w;
    process.stderr.write = e;
    process.exitCode = saved;
  }
}
