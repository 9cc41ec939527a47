// Issue #8: the LUNA example on the 3-node test cluster with node-local staging of its shards:
// each node gets only its ranks' shards, each rank opens only its own (from the staged copy), the
// job is tracked in MLflow and reported like the polynomial example, and the staged copies are gone
// at the end, also when the job is cancelled. Also through the local executor.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { sha256 } from '../../../data/manifest';
import { shardFiles } from '../../../data/shard';
import { syntheticLuna } from '../../../data/synthetic';
import { proxyPath } from '../../../tracking-plugin/mlflow/artifacts';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { lunaParser } from '../../../tracking-plugin/parsers/luna';
import { readRunMetrics } from '../../../tracking-plugin/series';
import type { MetricPoint } from '../../../tracking-plugin/types';
import { parseLine } from '../../unit/tracking/parse-line';
import {
  PYTHON,
  cancelJobs,
  cli,
  clusterEnv,
  jobIdOf,
  jobRecord,
  requireCluster,
  said,
  scontrolState,
  slurm,
  tmpDir,
  waitFor,
  waitTerminal,
} from '../launcher/cluster';
import { history, jobRuns, tag, triples } from '../tracking/helpers';
import { mlflowUp, uniqueName } from '../tracking/server';
import { openedFiles, stagedRecord, stageDirOf as stageDirIn } from './luna-helpers';

jest.setTimeout(300_000);

const TRAIN = 'examples/luna/train.py';
const EPOCHS = 3;
const SHARDS = 'luna shards'; // a space: the path travels quoted
/** Every key the luna parser makes of train.py's lines (val_pos: the validation shards hold positives). */
const KEYS = [
  ...['loss', 'correct', 'precision', 'recall', 'f1'].flatMap((m) => [`trn/${m}`, `val/${m}`]),
  ...['loss', 'correct'].flatMap((m) => [`val_neg/${m}`, `val_pos/${m}`]),
].sort();

type Shards = ReturnType<typeof makeShards>;

function makeShards(tag: string) {
  const dir = tmpDir(tag);
  const d = syntheticLuna({ series: 24, candidates: 1500, positives: 45, seed: 4 });
  fs.writeFileSync(path.join(dir, 'candidates.csv'), d.candidates);
  const out = path.join(dir, SHARDS);
  return shardFiles({ candidates: path.join(dir, 'candidates.csv'), worldSize: 3, outDir: out, seed: 1 });
}

/** The files of these ranks in a staged shard directory, relative to the staging directory, with their SHA-256. */
function expectedStaged(shards: Shards, ranks: number[]): Record<string, string> {
  const want: Record<string, string> = {
    [`${SHARDS}/manifest.json`]: sha256(fs.readFileSync(shards.manifestPath)),
  };
  for (const r of ranks)
    for (const split of ['train', 'val'] as const) {
      const e = shards.manifest.ranks[r][split];
      want[`${SHARDS}/${e.file}`] = e.sha256;
    }
  return want;
}

/**
 * Each rank read its own shard from its staging directory (not the shared source), opened no other
 * data file, and printed parseable LUNA lines for every epoch. Returns each rank's parsed points.
 */
function checkRanks(runDir: string, shards: Shards, stageDirOf: (rank: number) => string) {
  for (const rank of [0, 1, 2]) {
    const out = fs.readFileSync(path.join(runDir, 'logs', `rank-${rank}.out`), 'utf8');
    const e = shards.manifest.ranks[rank];
    const m = new RegExp(
      `^rank ${rank}/3 reads (.*)/${SHARDS}/rank-${rank}\\.train\\.csv: (\\d+) candidates \\((\\d+) positive\\)`,
      'm',
    ).exec(out);
    if (!m) throw new Error(`rank ${rank} did not say what it read:\n${out}`);
    expect(m[1]).toBe(stageDirOf(rank)); // the staged copy on its node, not the shared source
    expect([Number(m[2]), Number(m[3])]).toEqual([e.train.rows, e.train.positives]);
    // Every file the script opened (Python audit hook): its own shard and the manifest, staged.
    const staged = path.join(stageDirOf(rank), SHARDS);
    expect(openedFiles(out, rank)).toEqual(
      ['manifest.json', e.train.file, e.val.file].map((f) => path.join(staged, f)).sort(),
    );
    const metrics = out.split('\n').flatMap((l) => parseLine(lunaParser, l)?.metrics ?? []);
    const keys = new Set(metrics.map((x) => `${x.key}@${x.step}`));
    for (let ep = 1; ep <= EPOCHS; ep++) for (const k of KEYS) expect(keys).toContain(`${k}@${ep}`);
    for (const x of metrics) expect(Number.isFinite(x.value)).toBe(true);
  }
}

const stageRoots: string[] = [];

/** Submit's environment with node-local staging under a directory of this test's own. */
function stagingEnv(extra: Record<string, string> = {}) {
  const stageRoot = tmpDir('luna-stage-root');
  stageRoots.push(stageRoot);
  return { stageRoot, env: clusterEnv({ TRACK_LAUNCH_STAGE_ROOT: stageRoot, ...extra }) };
}

/** The aggregate points the parent run must hold for `key`: per step, over the ranks in rank order. */
function aggregates(perRank: MetricPoint[][], key: string, suffix: 'mean' | 'min' | 'max') {
  const byStep = new Map<number, MetricPoint[]>();
  for (const ps of perRank)
    for (const p of ps.filter((x) => x.key === key)) {
      if (!byStep.has(p.step)) byStep.set(p.step, []);
      byStep.get(p.step)!.push(p);
    }
  return [...byStep.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([step, ps]): [number, number, number] => {
      const v = ps.map((p) => p.value);
      const value =
        suffix === 'mean'
          ? v.reduce((a, b) => a + b, 0) / v.length
          : suffix === 'min'
            ? Math.min(...v)
            : Math.max(...v);
      return [step, value, Math.max(...ps.map((p) => p.timestamp))];
    });
}

describe('LUNA example with staged shards', () => {
  const jobs: string[] = [];
  beforeAll(() => requireCluster());
  afterAll(() => {
    cancelJobs(jobs);
    for (const d of stageRoots) fs.rmSync(d, { recursive: true, force: true });
  });

  it('runs on the 3-node cluster: each node stages only its shards, each rank opens only its own; tracked and reported', async () => {
    const uri = mlflowUp();
    const experiment = uniqueName('luna-cluster');
    const shards = makeShards('luna-srun');
    const runDir = path.join(tmpDir('luna-run'), 'run');
    const { stageRoot, env } = stagingEnv({ MLFLOW_TRACKING_URI: uri });
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--experiment',
        experiment,
        '--follow',
        '--poll',
        '0.5',
        '--run-dir',
        runDir,
        '--stage',
        shards.outDir,
        '--metrics-format',
        'luna',
        '--',
        PYTHON,
        TRAIN,
        '--epochs',
        String(EPOCHS),
      ],
      { env, timeoutMs: 260_000 },
    );
    if (r.code !== 0) throw new Error(`submit --stage failed:\n${said(r)}`);
    const jobId = jobIdOf(r);
    jobs.push(jobId);
    const stageDirOf = (rank: number) => stageDirIn(stageRoot, jobId, `tlnode${rank + 1}`);
    checkRanks(runDir, shards, stageDirOf);

    // Each node received the manifest and its own rank's shards, nothing else.
    const jobOut = fs.readFileSync(path.join(runDir, 'logs', 'job.out'), 'utf8');
    for (const rank of [0, 1, 2]) {
      const node = `tlnode${rank + 1}`;
      expect(jobOut).toContain(`staged ${shards.outDir} to ${node}:${stageDirOf(rank)}/${SHARDS}\n`);
      expect(stagedRecord(runDir, jobId, node)).toEqual(expectedStaged(shards, [rank]));
    }
    expect(fs.readdirSync(path.join(runDir, 'logs')).filter((n) => n.startsWith('staged.'))).toHaveLength(3);
    // Cleaned up at the end (the test nodes share this machine's file system).
    expect(fs.readdirSync(stageRoot)).toEqual([]);

    // Tracked like the polynomial example: one parent and a run per rank, histories equal to the logs.
    const client = await MlflowClient.connect(uri);
    const exp = await client.getExperimentByName(experiment);
    const state = JSON.parse(fs.readFileSync(path.join(runDir, 'tracking', 'state.json'), 'utf8'));
    const runs = await jobRuns(client, exp!.experiment_id, state.job_key);
    expect(runs.all).toHaveLength(4);
    expect(runs.parent.info.status).toBe('FINISHED');
    expect(runs.parent.info.end_time).toBeGreaterThan(0);
    expect(tag(runs.parent, 'slurm.job_id')).toBe(jobId);
    expect(tag(runs.parent, 'slurm.nodelist')).toBe('tlnode[1-3]');
    const series = await readRunMetrics(runDir);
    const perRank: MetricPoint[][] = [];
    for (const rank of [0, 1, 2]) {
      const run = runs.ranks.get(rank)!;
      expect(run.info.run_name).toBe(`rank-${rank}`);
      expect(run.info.status).toBe('FINISHED');
      expect(tag(run, 'mlflow.parentRunId')).toBe(runs.parent.info.run_id);
      expect(tag(run, 'host')).toBe(`tlnode${rank + 1}`);
      expect(tag(run, 'ip')).toBe(`10.77.77.1${rank + 1}`);
      const points = series.find((s) => s.rank === rank)!.points;
      perRank.push(points);
      expect([...new Set(points.map((p) => p.key))].sort()).toEqual(KEYS);
      const logged = (run.data.metrics ?? []).map((x) => x.key).filter((k) => !k.startsWith('system/'));
      expect(logged.sort()).toEqual(KEYS);
      for (const k of KEYS) {
        const fromLog = triples(points, k);
        expect(fromLog.map((t) => t[0])).toEqual([1, 2, 3]);
        expect({ k, h: await history(client, run.info.run_id, k) }).toEqual({ k, h: fromLog });
      }
    }
    for (const k of KEYS)
      for (const s of ['mean', 'min', 'max'] as const) {
        const want = aggregates(perRank, k, s);
        expect(want).toHaveLength(EPOCHS);
        expect({ k, s, h: await history(client, runs.parent.info.run_id, `${k}/${s}`) }).toEqual({
          k,
          s,
          h: want,
        });
      }

    // The report, attached to the parent: its text names the LUNA metrics and the ranks' final loss.
    const reports = (await client.listArtifacts(runs.parent.info.run_id, 'reports')).map((f) => f.path);
    expect(reports).toEqual(
      expect.arrayContaining(['reports/report.pdf', 'reports/loss.png' /* trn/loss with val/loss */]),
    );
    const rel = proxyPath(runs.parent.info.artifact_uri ?? '', 'reports/report.pdf');
    const res = await fetch(`${uri}/api/2.0/mlflow-artifacts/artifacts/${rel}`);
    expect(res.status).toBe(200);
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdf.equals(fs.readFileSync(path.join(runDir, 'reports', 'report.pdf')))).toBe(true);
    const pdfFile = path.join(tmpDir('luna-pdf'), 'report.pdf');
    fs.writeFileSync(pdfFile, pdf);
    const text = execFileSync('pdftotext', ['-layout', pdfFile, '-'], { encoding: 'utf8' });
    for (const k of KEYS) expect(text).toMatch(new RegExp(`^Final ${k} +mean \\S+ over 3 ranks`, 'm'));
    // trn/loss and the validation losses share one chart (the report groups a metric's modes).
    expect(text).toMatch(/loss: trn\/loss, val\/loss.*3 ranks on 3 hosts/);
    for (const rank of [0, 1, 2]) expect(text).toContain(`rank ${rank} (tlnode${rank + 1})`);
    const f = /^Final trn\/loss +mean (\S+) over 3 ranks \(min (\S+), max (\S+)\)$/m.exec(text);
    if (!f) throw new Error(`no final trn/loss line in the report:\n${text.slice(0, 3000)}`);
    const finals = perRank.map((ps) => triples(ps, 'trn/loss').pop()![1]);
    const near = (shown: string, v: number) =>
      expect(Math.abs(Number(shown) - v)).toBeLessThanOrEqual(5e-4 * v);
    near(f[1], finals.reduce((a, b) => a + b, 0) / 3);
    near(f[2], Math.min(...finals));
    near(f[3], Math.max(...finals));
  });

  /** Submits a long staged job; returns once all 3 ranks train and each node's copy was checked. */
  async function trainingJob(tag: string) {
    const shards = makeShards(tag);
    const runDir = path.join(tmpDir(`${tag}-run`), 'run dir'); // the task epilog's path has a space
    const { stageRoot, env } = stagingEnv();
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--run-dir',
        runDir,
        '--stage',
        shards.outDir,
        '--metrics-format',
        'luna',
        '--',
        PYTHON,
        TRAIN,
        '--epochs',
        '100000',
      ],
      { env },
    );
    if (r.code !== 0) throw new Error(`submit --stage failed:\n${said(r)}`);
    const jobId = jobIdOf(r);
    jobs.push(jobId);
    const training = (rank: number) => {
      const f = path.join(runDir, 'logs', `rank-${rank}.out`);
      return fs.existsSync(f) && /^E1 trn /m.test(fs.readFileSync(f, 'utf8'));
    };
    await waitFor('all 3 ranks to train', () => [0, 1, 2].every(training), 150_000, 1000);

    // While the job runs: each node's staging directory holds the manifest and its rank's shards only.
    const nodeDirs = [1, 2, 3].map((n) => `track-launch-${jobId}.tlnode${n}`);
    expect(fs.readdirSync(stageRoot).sort()).toEqual(nodeDirs);
    for (const rank of [0, 1, 2]) {
      const dir = path.join(stageRoot, nodeDirs[rank]);
      const have = Object.fromEntries(
        fs
          .readdirSync(path.join(dir, SHARDS))
          .map((n) => [`${SHARDS}/${n}`, sha256(fs.readFileSync(path.join(dir, SHARDS, n)))]),
      );
      expect(fs.readdirSync(dir)).toEqual([SHARDS]);
      expect(have).toEqual(expectedStaged(shards, [rank]));
    }
    return { jobId, env, stageRoot };
  }

  /** Waits up to 15 s for the staging root to empty, then asserts it is. */
  async function expectUnstaged(stageRoot: string) {
    await waitFor(
      'the staged copies to be removed',
      () => fs.readdirSync(stageRoot).length === 0,
      15_000,
    ).catch(() => undefined);
    expect(fs.readdirSync(stageRoot)).toEqual([]);
  }

  it('cancelled while training: every node removes its staged copy', async () => {
    const { jobId, env, stageRoot } = await trainingJob('luna-cancel');
    const c = await cli(['cancel', jobId], { env });
    expect({ code: c.code, out: c.code === 0 ? '' : said(c) }).toEqual({ code: 0, out: '' });
    const s = await waitTerminal(jobId, env, 60_000);
    expect(s.job.state?.name).toBe('CANCELLED');
    // No new step can start once the job is cancelled, and srun SIGKILLs the staging step's tasks:
    // the step's task epilog removes each node's copy.
    await expectUnstaged(stageRoot);
  });

  it("a staging step killed with SIGKILL (no trap runs) still removes every node's copy", async () => {
    const { jobId, env, stageRoot } = await trainingJob('luna-kill');
    // Step 0 is the staging step (the batch script's first srun); the ranks (step 1) keep running.
    const k = slurm(['scancel', '--signal=KILL', `${jobId}.0`], env);
    expect({ code: k.code, err: k.stderr }).toEqual({ code: 0, err: '' });
    await expectUnstaged(stageRoot);
    expect(scontrolState(jobId, env)).toBe('RUNNING');
    const c = await cli(['cancel', jobId], { env });
    expect({ code: c.code, out: c.code === 0 ? '' : said(c) }).toEqual({ code: 0, out: '' });
  });

  it('runs with the local executor: one staging directory, each rank opens only its own shard', async () => {
    const shards = makeShards('luna-local');
    const runDir = path.join(tmpDir('luna-local-run'), 'run');
    const { stageRoot, env } = stagingEnv();
    const r = await cli(
      [
        'submit',
        '--executor',
        'local',
        '-N',
        '3',
        '--follow',
        '--run-dir',
        runDir,
        '--stage',
        shards.outDir,
        '--metrics-format',
        'luna',
        '--',
        PYTHON,
        TRAIN,
        '--epochs',
        String(EPOCHS),
      ],
      { env, timeoutMs: 220_000 },
    );
    if (r.code !== 0) throw new Error(`submit --executor local --stage failed:\n${said(r)}`);
    const jobId = jobRecord(runDir).job_id!;
    const stageDir = stageDirIn(stageRoot, jobId, os.hostname());
    checkRanks(runDir, shards, () => stageDir);
    expect(stagedRecord(runDir, jobId, os.hostname())).toEqual(expectedStaged(shards, [0, 1, 2]));
    expect(fs.readdirSync(stageRoot)).toEqual([]);
  });
});
