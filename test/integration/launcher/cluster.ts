// Helpers for the launcher's integration tests on the real 3-node test cluster (test/cluster/up).
// Every test drives the built CLI (node bin/track-launch.js, from `npm run build`) as a user would.
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { JobRecord, RankFacts } from '../../../core/rundir/layout';
import { isFinal, jobState } from '../../../core/job-states';

export const REPO = path.resolve(__dirname, '..', '..', '..');
export const SLURM_CONF = path.join(REPO, 'test', 'cluster', '.state', 'etc', 'slurm.conf');
export const CLI = path.join(REPO, 'bin', 'track-launch.js');
/** The Python with torch (Debian's); the pyenv python3 first on PATH has none. */
export const PYTHON = process.env.TRACK_LAUNCH_TEST_PYTHON ?? '/usr/bin/python3';
export const TRAIN = 'examples/polynomial/train.py'; // relative: jobs run with --chdir=<repo>
export const NODES = ['tlnode1', 'tlnode2', 'tlnode3'];
export const NODE_ADDR = ['10.77.77.11', '10.77.77.12', '10.77.77.13'];

/** A fresh directory under the system temp dir (the namespaces share the host's /tmp: our "shared filesystem"). */
export function tmpDir(tag: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `tl-it-${tag}-`));
}

/** The CLI's environment: the cluster's Slurm config, Open MPI as root, a private job index, and
 *  jobs tracked by hand (`--track none`): a test of where tracking runs sets TRACK_LAUNCH_TRACK. */
export function clusterEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    SLURM_CONF,
    OMPI_ALLOW_RUN_AS_ROOT: '1',
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1',
    XDG_STATE_HOME: tmpDir('state'),
    TRACK_LAUNCH_TRACK: 'none',
    ...extra,
  };
}

/**
 * Throws (so the suite fails, never skips) unless the test cluster answers, and the CLI is built.
 * Call it in beforeAll.
 */
export function requireCluster(): void {
  const up = 'Start it with `test/cluster/up` (and check it with `test/cluster/smoke`).';
  if (!fs.existsSync(SLURM_CONF)) {
    throw new Error(`The Slurm test cluster is not up: ${SLURM_CONF} does not exist. ${up}`);
  }
  // One line per node: with nodes in different states (some busy) sinfo's grouped form splits tlnode[1-3].
  const r = spawnSync('sinfo', ['-h', '-N', '-o', '%N'], {
    env: clusterEnv(),
    encoding: 'utf8',
    timeout: 20_000,
  });
  if (r.status !== 0) {
    throw new Error(
      `The Slurm test cluster is not up: sinfo failed (exit ${r.status}${r.error ? `, ${r.error.message}` : ''}): ${r.stderr}\n${up}`,
    );
  }
  const nodes = new Set(r.stdout.split('\n').map((l) => l.trim()));
  if (!['tlnode1', 'tlnode2', 'tlnode3'].every((n) => nodes.has(n)))
    throw new Error(`The Slurm test cluster does not list tlnode[1-3]: ${JSON.stringify(r.stdout)}. ${up}`);
  if (!fs.existsSync(path.join(REPO, 'dist')))
    throw new Error('dist/ is missing: run `npm run build` first (the tests run bin/track-launch.js).');
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
  ms: number;
}

/** Runs `node bin/track-launch.js ...args` (no shell) and collects its output. */
export function cli(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: opts.cwd ?? REPO,
      env: opts.env ?? clusterEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGTERM'), opts.timeoutMs ?? 170_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({
        code,
        signal,
        stdout: stdoutBytes.toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        stdoutBytes,
        ms: Date.now() - t0,
      });
    });
  });
}

/** A failure message showing what the CLI said. */
export const said = (r: CliResult) =>
  `exit ${r.code}${r.signal ? ` (${r.signal})` : ''} after ${r.ms} ms\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`;

/** The job id from `submit`'s "Submitted job N" line (or its --json output). */
export function jobIdOf(r: CliResult): string {
  const m = /Submitted job (\d+)/.exec(r.stderr) ?? /"job_id":\s*"(\d+)"/.exec(r.stdout);
  if (!m) throw new Error(`no job id in submit's output:\n${said(r)}`);
  return m[1];
}

export interface StatusJson {
  run_dir: string;
  job: JobRecord;
  ranks: RankFacts[];
  failed: RankFacts | null;
}

export async function statusJson(job: string, env: NodeJS.ProcessEnv): Promise<StatusJson> {
  const r = await cli(['status', job, '--json'], { env, timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`status ${job} --json failed:\n${said(r)}`);
  return JSON.parse(r.stdout) as StatusJson;
}

/** Polls `status --json` until the job's state is final (or the time is up: then the last status). */
export async function waitTerminal(
  job: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 150_000,
): Promise<StatusJson> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = await statusJson(job, env);
    if (isFinal(s.job) || Date.now() > end) return s;
    await sleep(1000);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `probe` until it returns something truthy; throws with `what` after timeoutMs. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs: number,
  everyMs = 500,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Runs a Slurm command (sbatch, scontrol, scancel, ...) against the test cluster. */
export function slurm(argv: string[], env: NodeJS.ProcessEnv = clusterEnv(), cwd = REPO) {
  const r = spawnSync(argv[0], argv.slice(1), { env, cwd, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** `scontrol show job -o` JobState, or undefined once slurmctld forgot the job. */
export function scontrolState(jobId: string, env?: NodeJS.ProcessEnv): string | undefined {
  const r = slurm(['scontrol', 'show', 'job', '-o', jobId], env);
  return /JobState=([A-Z_]+)/.exec(r.stdout)?.[1];
}

/** Cancels jobs a failed test left behind, so later tests get the nodes. */
export function cancelJobs(ids: string[], env?: NodeJS.ProcessEnv): void {
  for (const id of ids) {
    const st = scontrolState(id, env);
    if (st && !jobState(st).final) slurm(['scancel', id], env);
  }
}

// --- the run directory ------------------------------------------------------------------------

export const logFile = (runDir: string, name: string) => path.join(runDir, 'logs', name);
export const readText = (file: string) => fs.readFileSync(file, 'utf8');

/** Lines of a text file, without the empty string after the last newline. */
export function lines(file: string): string[] {
  const t = readText(file);
  if (t === '') return [];
  const ls = t.split('\n');
  if (ls[ls.length - 1] === '') ls.pop();
  return ls;
}

export function rankFacts(runDir: string, rank: number): RankFacts {
  return JSON.parse(readText(logFile(runDir, `rank-${rank}.json`))) as RankFacts;
}

export function jobRecord(runDir: string): JobRecord {
  return JSON.parse(readText(path.join(runDir, 'job.json'))) as JobRecord;
}

/** job.json once submit has written it; undefined before (submit claims the run directory with an
 *  empty job.json, then writes the record over it). For polls that start while submit runs. */
export function writtenJobRecord(runDir: string): JobRecord | undefined {
  const file = path.join(runDir, 'job.json');
  const text = fs.existsSync(file) ? readText(file) : '';
  return text ? (JSON.parse(text) as JobRecord) : undefined;
}

/** rank-R.out* / rank-R.json files present, as sorted rank numbers. */
export function ranksWithLogs(runDir: string, suffix = '.out'): number[] {
  const re = new RegExp(`^rank-(\\d+)${suffix.replace(/\./g, '\\.')}$`);
  return fs
    .readdirSync(path.join(runDir, 'logs'))
    .map((n) => re.exec(n)?.[1])
    .filter((x): x is string => x !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

export interface SeedLine {
  epoch: number;
  loss: number;
  rank: number;
  size: number;
  host: string;
}

const SEED_RE = /^epoch (\d+), loss = ([-+0-9.eE]+|nan|inf), rank (\d+)\/(\d+) \(([^()]+)\)\.$/;

/** The seed's log line `epoch N, loss = X, rank r/size (host).`, or undefined for any other line. */
export function parseSeedLine(line: string): SeedLine | undefined {
  const m = SEED_RE.exec(line);
  if (!m) return undefined;
  return { epoch: Number(m[1]), loss: Number(m[2]), rank: Number(m[3]), size: Number(m[4]), host: m[5] };
}

/** Epochs printed by train.py with --epochs E --log-every K. */
export function loggedEpochs(epochs: number, every: number): number[] {
  const out: number[] = [];
  for (let e = 0; e < epochs; e++) if (e % every === 0 || e === epochs - 1) out.push(e);
  return out;
}

/**
 * Checks rank R's stdout of a polynomial job: only its own lines, all logged epochs in order,
 * loss falling, and a .out.ts with one non-decreasing time per line. Returns the seed lines.
 */
export function checkPolynomialRank(
  runDir: string,
  rank: number,
  size: number,
  host: string,
  epochs: number,
  every: number,
): SeedLine[] {
  const out = lines(logFile(runDir, `rank-${rank}.out`));
  const seeds: SeedLine[] = [];
  for (const l of out) {
    // Any line naming a rank ("Running DDP on rank r/size.", seed lines) must name this one.
    for (const m of l.matchAll(/rank (\d+)\/(\d+)/g)) {
      expect({ line: l, rank: Number(m[1]), size: Number(m[2]) }).toEqual({ line: l, rank, size });
    }
    const s = parseSeedLine(l);
    if (s) seeds.push(s);
  }
  expect(out).toContain(`Running DDP on rank ${rank}/${size}.`);
  expect(seeds.map((s) => s.epoch)).toEqual(loggedEpochs(epochs, every));
  for (const s of seeds) expect(s).toMatchObject({ rank, size, host });
  expect(seeds.every((s) => Number.isFinite(s.loss) && s.loss >= 0)).toBe(true);
  expect(seeds[seeds.length - 1].loss).toBeLessThan(seeds[0].loss);

  const ts = lines(logFile(runDir, `rank-${rank}.out.ts`));
  expect(ts.length).toBeGreaterThanOrEqual(out.length);
  const times = ts.map((t) => {
    expect(t).toMatch(/^\d{9,}\.\d{6}$/);
    return Number(t);
  });
  for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThanOrEqual(times[i - 1]);
  const facts = rankFacts(runDir, rank);
  // Every line was written while the rank ran (1 s slack for clock granularity).
  expect(times[0]).toBeGreaterThanOrEqual(facts.started_at - 1);
  expect(times[times.length - 1]).toBeLessThanOrEqual((facts.ended_at ?? Infinity) + 1);
  return seeds;
}
