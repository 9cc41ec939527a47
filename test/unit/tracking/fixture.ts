// Hand-made run directories following docs/run-dir.md, for tracking tests.
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { JobRecord, JobStateName, RankFacts } from '../../../core/rundir/layout';

export async function makeRunDir(prefix = 'tl-track-'): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await fs.mkdir(path.join(dir, 'logs'), { recursive: true });
  return dir;
}

export function jobRecord(over: Partial<JobRecord> = {}, world = 3): JobRecord {
  return {
    version: 1,
    name: 'poly',
    executor: 'slurm',
    job_id: '4242',
    cluster: 'testcluster',
    submitted_at: 1764669000,
    plan_digest: 'sha256:abc',
    spec: {
      nodes: world,
      tasks_per_node: 1,
      gpus_per_node: 0,
      world_size: world,
      launcher: 'srun',
      backend: 'gloo',
      partition: 'batch',
      modules: [],
      command: ['python', 'main.py'],
      env_keys: [],
      params: { lr: '0.001' },
    },
    state: { name: 'RUNNING', nodes: 'n[1-3]', started_at: 1764669001 },
    ...over,
  };
}

/** job.json replaced whole, as track-launch writes it (core's writeAtomic): a live ingester polling
 *  the run dir never reads a half-written one (writeFile truncates first: seen once as "not valid JSON"). */
export async function writeJob(dir: string, job: JobRecord): Promise<void> {
  const file = path.join(dir, 'job.json');
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(job, null, 2));
  await fs.rename(tmp, file);
}

export async function endJob(dir: string, name: JobStateName, endedAt = 1764669100): Promise<void> {
  const job = JSON.parse(await fs.readFile(path.join(dir, 'job.json'), 'utf8')) as JobRecord;
  job.state = {
    ...(job.state ?? { name }),
    name,
    ended_at: endedAt,
    exit_code: name === 'COMPLETED' ? 0 : 1,
  };
  await writeJob(dir, job);
}

export function rankFacts(rank: number, world = 3): RankFacts {
  return {
    version: 1,
    rank,
    local_rank: 0,
    node_rank: rank,
    world_size: world,
    local_world_size: 1,
    host: `n${rank + 1}`,
    ip: `10.0.0.${rank + 1}`,
    iface: 'eth0',
    master_addr: '10.0.0.1',
    master_port: 29500,
    job_id: '4242',
    restart: 0,
    launcher: 'srun',
    started_at: 1764669001,
  };
}

export async function writeFacts(dir: string, rank: number, world = 3): Promise<void> {
  await fs.writeFile(path.join(dir, 'logs', `rank-${rank}.json`), JSON.stringify(rankFacts(rank, world)));
}

/** Append lines to rank R's log and its .out.ts (one time per line), like the bootstrap does. */
export async function appendLines(
  dir: string,
  rank: number,
  lines: string[],
  t0Sec: number,
  opts: { ts?: boolean } = {},
): Promise<void> {
  if (!lines.length) return;
  await fs.appendFile(path.join(dir, 'logs', `rank-${rank}.out`), lines.map((l) => l + '\n').join(''));
  if (opts.ts === false) return;
  const ts = lines
    .map((_, i) => `${(t0Sec + i).toFixed(0)}.${String(123456 + rank).padStart(6, '0')}\n`)
    .join('');
  await fs.appendFile(path.join(dir, 'logs', `rank-${rank}.out.ts`), ts);
}

export const polyLine = (epoch: number, rank: number, world = 3, loss = 1 / (epoch + rank + 1)) =>
  `epoch ${epoch}, loss = ${loss}, rank ${rank}/${world} (n${rank + 1}).`;

/** The polynomial example's output for one rank: a greeting, then every 100th epoch, then the plot line. */
export function polyLog(rank: number, world = 3, epochs = 1000): string[] {
  const lines = [`Running DDP on rank ${rank}/${world}.`];
  for (let e = 0; e < epochs; e += 100) lines.push(polyLine(e, rank, world));
  if (rank === 0) lines.push('plot evaluation result to errors.pdf');
  return lines;
}
