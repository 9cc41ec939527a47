// Per-node staging of a shard directory made with --data-dir (issue 20): the plan's bytes per node,
// the refusals on the login node, and sbatch/stage.sh copying exactly a node's ranks' series files.
// Expected files and bytes come from manifest.json read as plain JSON and from fs.statSync.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { shardFiles } from '../../../data/shard';
import { planStaging } from '../../../data/stage-plan';
import { writeSyntheticCt } from '../../../data/synthetic-ct-files';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-stage-plan-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** 8 series sharded for 4 ranks (2 nodes x 2 tasks). */
function fixture() {
  const base = tmp();
  const data = path.join(base, 'luna16');
  const w = writeSyntheticCt(data, {
    series: 8,
    candidates: 80,
    positives: 8,
    volume: [24, 24, 16],
    seed: 1,
  });
  const out = path.join(base, 'shards');
  shardFiles({
    candidates: w.candidates,
    annotations: w.annotations,
    worldSize: 4,
    outDir: out,
    dataDir: data,
  });
  const m = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
  return { base, data, out, m };
}

type Fixture = ReturnType<typeof fixture>;

/** Relative paths a node must hold: shard files by name, series files by data path. */
function nodeFiles(f: Fixture, ranks: number[]): { shard: string[]; data: string[] } {
  const shard = ['manifest.json'];
  const data: string[] = [];
  for (const r of ranks) {
    const e = f.m.ranks[r];
    shard.push(
      e.train.file,
      e.val.file,
      e.train.annotations.file,
      e.val.annotations.file,
      `rank-${r}.data-files.txt`,
    );
    data.push(...e.train.data_files, ...e.val.data_files);
  }
  return { shard, data };
}

const bytesOf = (dir: string, files: string[]) =>
  files.reduce((n, x) => n + fs.statSync(path.join(dir, x)).size, 0);

describe('planStaging', () => {
  const f = fixture();

  it("gives each node its ranks' shard files and series files, with their bytes", () => {
    const p = planStaging(f.out, { nodes: 2, tasksPerNode: 2 })!;
    expect(p.dataDir).toBe(path.resolve(f.data));
    for (const node of [0, 1]) {
      const want = nodeFiles(f, [2 * node, 2 * node + 1]);
      expect(p.nodes[node]).toEqual({
        node,
        ranks: [2 * node, 2 * node + 1],
        files: want.shard.length + want.data.length,
        bytes: bytesOf(f.out, want.shard) + bytesOf(f.data, want.data),
        dataFiles: want.data.length,
        dataBytes: bytesOf(f.data, want.data),
      });
    }
    const all = nodeFiles(f, [0, 1, 2, 3]);
    expect(p.all.bytes).toBe(bytesOf(f.out, all.shard) + bytesOf(f.data, all.data));
  });

  it('is undefined for a directory that is not a shard directory (copied whole)', () => {
    expect(planStaging(f.data, { nodes: 2, tasksPerNode: 2 })).toBeUndefined();
  });

  it('refuses another world size', () => {
    expect(() => planStaging(f.out, { nodes: 3, tasksPerNode: 1 })).toThrow(
      /sharded for 4 rank\(s\) \(manifest.json\), but this job has 3 \(3 node\(s\) x 1 task\(s\)\)/,
    );
  });

  it('refuses a data directory that is not visible, and series files that changed', () => {
    const g = fixture();
    const moved = `${g.data}.moved`;
    fs.renameSync(g.data, moved);
    expect(() => planStaging(g.out, { nodes: 2, tasksPerNode: 2 })).toThrow(
      `the data directory ${path.resolve(g.data)} (manifest.json) is not visible on this machine`,
    );
    fs.renameSync(moved, g.data);
    const raw = path.join(
      g.data,
      g.m.ranks[1].train.data_files.find((x: string) => x.endsWith('.raw')),
    );
    fs.appendFileSync(raw, 'x');
    expect(() => planStaging(g.out, { nodes: 2, tasksPerNode: 2 })).toThrow(
      /rank 1's series files hold \d+ bytes/,
    );
  });
});

describe('sbatch/stage.sh copy with a data directory', () => {
  it("copies node 1's ranks' shards and exactly their series files, at their relative paths, and records them", () => {
    const f = fixture();
    const root = tmp();
    const run = tmp();
    const env = {
      ...process.env,
      TRACK_LAUNCH_STAGE_ROOT: root,
      TRACK_LAUNCH_RUN_DIR: run,
      SLURM_NODEID: '1',
      SLURM_JOB_ID: '42',
    };
    execFileSync('bash', ['sbatch/stage.sh', 'copy', f.out, '2', f.data], { env, stdio: 'pipe' });
    const dest = path.join(root, `track-launch-42.${os.hostname()}`, 'shards');
    const want = nodeFiles(f, [2, 3]);
    const have: string[] = [];
    const walk = (rel: string) => {
      for (const e of fs.readdirSync(path.join(dest, rel), { withFileTypes: true }))
        if (e.isDirectory()) walk(path.join(rel, e.name));
        else have.push(path.join(rel, e.name));
    };
    walk('');
    expect(have.sort()).toEqual([...want.shard, ...want.data].sort());
    for (const x of want.data)
      expect(fs.readFileSync(path.join(dest, x))).toEqual(fs.readFileSync(path.join(f.data, x)));
    const record = fs.readFileSync(path.join(run, 'logs', `staged.42.r0.${os.hostname()}.txt`), 'utf8');
    expect(record.trim().split('\n')).toHaveLength(want.shard.length + want.data.length);
  });
});
