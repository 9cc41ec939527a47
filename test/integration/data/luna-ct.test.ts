// Issue #20: the LUNA example on real-format CT (MetaImage .mhd + .raw) on the 3-node test cluster.
// `data synth --ct` writes a few dozen series, `data shard --data-dir` shards them for 3 ranks, and
// `submit --stage` copies to each node exactly its rank's shards and series files. The expectations
// are computed here from manifest.json and the source files, not with track-launch's own code:
// each node's staged list, the bytes per node in the dry run, that every rank opened only files of
// its node-local copy (and exactly its own series), and that the run lands in MLflow with its report.
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import {
  PYTHON,
  cancelJobs,
  cli,
  clusterEnv,
  jobIdOf,
  requireCluster,
  said,
  tmpDir,
} from '../launcher/cluster';
import { jobRuns } from '../tracking/helpers';
import { mlflowUp, uniqueName } from '../tracking/server';
import { openedFiles, stagedRecord, stageDirOf } from './luna-helpers';

jest.setTimeout(300_000);

const EPOCHS = 3;
const SHARDS = 'ct shards'; // a space: the path travels quoted
const sha = (f: string) => createHash('sha256').update(fs.readFileSync(f)).digest('hex');

interface Manifest {
  world_size: number;
  data: { dir: string };
  ranks: {
    rank: number;
    train: { file: string; series: string[]; data_files: string[]; annotations?: { file: string } };
    val: { file: string; series: string[]; data_files: string[]; annotations?: { file: string } };
    data_list: { file: string };
  }[];
}

/** What node `rank` must hold, relative to its staging directory, with SHA-256 of the source. */
function expectedNode(shardDir: string, m: Manifest, rank: number): Record<string, string> {
  const r = m.ranks[rank];
  const shardFiles = ['manifest.json', r.train.file, r.val.file, r.data_list.file];
  for (const a of [r.train.annotations, r.val.annotations]) if (a) shardFiles.push(a.file);
  const want: Record<string, string> = {};
  for (const f of shardFiles) want[`${SHARDS}/${f}`] = sha(path.join(shardDir, f));
  // Exactly the series files of the rank's series: .mhd and .raw of each, found in the data dir.
  for (const uid of [...r.train.series, ...r.val.series]) {
    const subset = fs
      .readdirSync(m.data.dir)
      .find((d) => fs.existsSync(path.join(m.data.dir, d, `${uid}.mhd`)));
    if (!subset) throw new Error(`no .mhd for ${uid}`);
    for (const ext of ['mhd', 'raw'])
      want[`${SHARDS}/${subset}/${uid}.${ext}`] = sha(path.join(m.data.dir, subset, `${uid}.${ext}`));
  }
  return want;
}

describe('LUNA example on staged MetaImage CT series', () => {
  const jobs: string[] = [];
  const dirs: string[] = [];
  beforeAll(() => requireCluster());
  afterAll(() => {
    cancelJobs(jobs);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('synth --ct, shard --data-dir, submit --stage: each node stages exactly its series, ranks read only them; tracked and reported', async () => {
    const base = tmpDir('luna-ct');
    const stageRoot = tmpDir('luna-ct-stage');
    dirs.push(base, stageRoot);
    const data = path.join(base, 'luna16');
    const shardDir = path.join(base, SHARDS);
    const env = clusterEnv({ TRACK_LAUNCH_STAGE_ROOT: stageRoot, MLFLOW_TRACKING_URI: mlflowUp() });
    const steps = [
      [
        'data',
        'synth',
        '--ct',
        '-o',
        data,
        '--series',
        '30',
        '--candidates',
        '1200',
        '--positives',
        '60',
        '--seed',
        '2',
      ],
      ['data', 'shard', '--candidates', `${data}/candidates.csv`, '--annotations', `${data}/annotations.csv`],
    ];
    steps[1].push('--data-dir', data, '--world-size', '3', '--out', shardDir);
    for (const s of steps) {
      const r = await cli(s, { env });
      if (r.code !== 0) throw new Error(`${s.slice(0, 2).join(' ')} failed:\n${said(r)}`);
    }
    const m = JSON.parse(fs.readFileSync(path.join(shardDir, 'manifest.json'), 'utf8')) as Manifest;
    const want = [0, 1, 2].map((r) => expectedNode(shardDir, m, r));
    expect(Object.keys(want[0]).filter((f) => f.endsWith('.raw')).length).toBeGreaterThan(3);

    // The plan shows each node's bytes: the sum of the files it must get.
    const submit = ['submit', '-N', '3', '--stage', shardDir, '--metrics-format', 'luna'];
    const dry = await cli([...submit, '--dry-run', '--', PYTHON, 'examples/luna/train.py'], { env });
    if (dry.code !== 0) throw new Error(`dry run failed:\n${said(dry)}`);
    for (const r of [0, 1, 2]) {
      const files = Object.keys(want[r]).map((f) => f.slice(SHARDS.length + 1));
      const bytes = files.reduce(
        (n, f) => n + fs.statSync(path.join(f.startsWith('subset') ? data : shardDir, f)).size,
        0,
      );
      expect(dry.stdout).toContain(`#   node ${r} (rank ${r}): ${files.length} file(s), ${bytes} bytes`);
    }
    // Refused: another world size.
    const two = await cli(
      ['submit', '-N', '2', '--stage', shardDir, '--dry-run', '--', PYTHON, 'examples/luna/train.py'],
      {
        env,
      },
    );
    expect(two.code).not.toBe(0);
    expect(two.stderr).toContain('sharded for 3 rank(s) (manifest.json), but this job has 2');

    const experiment = uniqueName('luna-ct');
    const runDir = path.join(base, 'run');
    const r = await cli(
      [...submit, '--experiment', experiment, '--follow', '--poll', '0.5', '--run-dir', runDir, '--'].concat([
        PYTHON,
        'examples/luna/train.py',
        '--epochs',
        String(EPOCHS),
        '--prepare',
      ]),
      { env, timeoutMs: 260_000 },
    );
    if (r.code !== 0) throw new Error(`submit failed:\n${said(r)}`);
    const jobId = jobIdOf(r);
    jobs.push(jobId);

    for (const rank of [0, 1, 2]) {
      const host = `tlnode${rank + 1}`;
      const stageDir = stageDirOf(stageRoot, jobId, host);
      // Staged on the node: exactly the manifest, its shards and its series files, byte for byte.
      expect(stagedRecord(runDir, jobId, host)).toEqual(want[rank]);
      const out = fs.readFileSync(path.join(runDir, 'logs', `rank-${rank}.out`), 'utf8');
      const series = new Set([...m.ranks[rank].train.series, ...m.ranks[rank].val.series]);
      expect(out).toContain(
        `rank ${rank}/3 read ${series.size} CT series from ${stageDir}/${SHARDS}; crops cached in`,
      );
      // Every file the rank opened is in its node-local copy: CT files exactly its own, the rest shards or crop cache.
      const opened = openedFiles(out, rank);
      const local = `${stageDir}/${SHARDS}/`;
      expect(opened.filter((f) => !f.startsWith(local))).toEqual([]);
      const rel = opened.map((f) => f.slice(local.length));
      const ct = Object.keys(want[rank])
        .filter((f) => /\.(mhd|raw)$/.test(f))
        .map((f) => f.slice(SHARDS.length + 1));
      expect(rel.filter((f) => /\.(mhd|raw)$/.test(f)).sort()).toEqual(ct.sort());
      for (const f of rel.filter((x) => !/\.(mhd|raw)$/.test(x)))
        expect(f).toMatch(
          /^(manifest\.json|rank-\d+\.(train|val)\.csv|crop-cache\/[0-9.]+\.[0-9a-f]{16}\.npy(\.tmp-\d+\.npy)?)$/,
        );
      expect(out).toMatch(new RegExp(`^rank ${rank}/3 opened during the epochs \\[\\]$`, 'm'));
      for (let ep = 1; ep <= EPOCHS; ep++) expect(out).toMatch(new RegExp(`^E${ep} trn +[0-9.]+ loss,`, 'm'));
    }
    expect(fs.readdirSync(stageRoot)).toEqual([]); // removed at the end

    const client = await MlflowClient.connect(env.MLFLOW_TRACKING_URI!);
    const exp = await client.getExperimentByName(experiment);
    const state = JSON.parse(fs.readFileSync(path.join(runDir, 'tracking', 'state.json'), 'utf8'));
    const runs = await jobRuns(client, exp!.experiment_id, state.job_key);
    expect(runs.all).toHaveLength(4);
    expect(runs.parent.info.status).toBe('FINISHED');
    for (const rank of [0, 1, 2]) {
      const keys = (runs.ranks.get(rank)!.data.metrics ?? []).map((x) => x.key);
      expect(keys).toEqual(expect.arrayContaining(['trn/loss', 'val/loss', 'val_pos/correct']));
    }
    const reports = (await client.listArtifacts(runs.parent.info.run_id, 'reports')).map((f) => f.path);
    expect(reports).toContain('reports/report.pdf');
    expect(fs.statSync(path.join(runDir, 'reports', 'report.pdf')).size).toBeGreaterThan(1000);
  });
});
