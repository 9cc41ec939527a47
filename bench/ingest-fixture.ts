// The ingestion benchmark's fixtures: a private MLflow server, a run dir of R ranks x S steps in the
// polynomial format, and prebuilt log-batch payloads of exactly the points ingest spooled.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { sh } from './common';
import type { Payload } from './mlflow-rest';

export interface Server {
  uri: string;
  stop: () => void;
}

/** The test server: sqlite, one uvicorn worker (test/mlflow/up). */
export function startServer(tmp: string): Server {
  const state = path.join(tmp, 'mlflow');
  const uri = sh(`bash test/mlflow/up ${JSON.stringify(state)}`)
    .trim()
    .split('\n')
    .pop() as string;
  return { uri, stop: () => sh(`bash test/mlflow/down --purge ${JSON.stringify(state)}`) };
}

/** The production-style server: PostgreSQL 15 behind `mlflow server --workers N` (bench/pg-server.sh).
 *  Its state is a directory of its own under the system's temporary directory, not under the bench's
 *  private scratch (0700, root's): PostgreSQL runs as another user and must reach it. */
export function startPgServer(workers: number): Server {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-bench-pg-'));
  const q = JSON.stringify(state);
  try {
    const uri = sh(`bash bench/pg-server.sh up ${q} ${workers}`).trim().split('\n').pop() as string;
    return { uri, stop: () => sh(`bash bench/pg-server.sh down ${q}`) };
  } catch (err) {
    sh(`bash bench/pg-server.sh down ${q}`);
    throw err;
  }
}

/** job.json's spec of a bench job of `ranks` polynomial-format ranks, 8 a node. */
export const benchSpec = (ranks: number) => ({
  nodes: Math.ceil(ranks / 8),
  tasks_per_node: Math.min(8, ranks),
  gpus_per_node: 0,
  world_size: ranks,
  launcher: 'srun',
  backend: 'gloo',
  modules: [],
  command: ['python3', 'train.py'],
  env_keys: [],
  metrics_format: 'polynomial',
  params: {},
});

/** A run dir as a finished-looking job leaves it, minus the job's end (so ingest sends metrics only):
 *  job.json, logs/rank-R.out in the polynomial format, logs/rank-R.out.ts. */
export function makeRunDir(dir: string, ranks: number, steps: number): void {
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
  const t0 = 1_796_000_000;
  const job = {
    version: 1,
    name: `bench-${ranks}`,
    executor: 'slurm',
    job_id: `bench${ranks}`,
    submitted_at: t0,
    plan_digest: 'bench',
    spec: benchSpec(ranks),
    state: { name: 'RUNNING', started_at: t0 },
  };
  fs.writeFileSync(path.join(dir, 'job.json'), JSON.stringify(job));
  for (let r = 0; r < ranks; r++) {
    const out: string[] = [];
    const ts: string[] = [];
    for (let s = 0; s < steps; s++) {
      const loss = 0.7 * Math.exp(-s / 2000) + (0.001 * ((s * 7919 + r * 104729) % 1000)) / 1000;
      out.push(
        `epoch ${s}, loss = ${loss.toPrecision(6)}, rank ${r}/${ranks} (node${Math.floor(r / 8) + 1}).`,
      );
      const us = t0 * 1e6 + s * 50_000 + r * 37;
      ts.push(`${Math.floor(us / 1e6)}.${String(us % 1e6).padStart(6, '0')}`);
    }
    fs.writeFileSync(path.join(dir, 'logs', `rank-${r}.out`), out.join('\n') + '\n');
    fs.writeFileSync(path.join(dir, 'logs', `rank-${r}.out.ts`), ts.join('\n') + '\n');
  }
}

/** A stream's points as log-batch metric arrays of up to 1,000, serialised once (before any clock). */
export interface Prebuilt {
  stream: string;
  metrics: Buffer;
  points: number;
}

/** Every spool stream (tracking/spool/<stream>.jsonl), in name order, prebuilt. */
export function prebuiltFromSpool(spoolDir: string): Prebuilt[] {
  const out: Prebuilt[] = [];
  const streams = fs
    .readdirSync(spoolDir)
    .filter((n) => n.endsWith('.jsonl'))
    .map((n) => n.slice(0, -6))
    .sort();
  for (const stream of streams) {
    const lines = fs
      .readFileSync(path.join(spoolDir, `${stream}.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean);
    for (let i = 0; i < lines.length; i += 1000) {
      const metrics = lines.slice(i, i + 1000).map((l) => {
        const [key, value, step, timestamp] = JSON.parse(l) as [string, number, number, number];
        return { key, value, timestamp, step };
      });
      out.push({ stream, metrics: Buffer.from(JSON.stringify(metrics)), points: metrics.length });
    }
  }
  return out;
}

/** The log-batch bodies once the runs exist: the prebuilt metrics behind each stream's run id. */
export function payloadsFor(pre: readonly Prebuilt[], runIds: ReadonlyMap<string, string>): Payload[] {
  return pre.map((p) => ({
    body: Buffer.concat([
      Buffer.from(`{"run_id":${JSON.stringify(runIds.get(p.stream))},"metrics":`),
      p.metrics,
      Buffer.from('}'),
    ]),
    points: p.points,
  }));
}
