// Issue #8: the LUNA example on the 3-node test cluster with node-local staging of its shards:
// each rank reads only its own shard (from the staged copy), its lines are tracked, and the
// staging directories are gone at the end. Also through the local executor.
import * as fs from 'fs';
import * as path from 'path';
import { shardFiles } from '../../../launcher/data/shard';
import { syntheticLuna } from '../../../launcher/data/synthetic';
import { lunaParser } from '../../../tracking-plugin/parsers/luna';
import { PYTHON, cli, clusterEnv, jobIdOf, requireCluster, said, tmpDir } from '../launcher/cluster';

jest.setTimeout(240_000);

const TRAIN = 'examples/luna/train.py';
const EPOCHS = 3;

function makeShards(tag: string) {
  const dir = tmpDir(tag);
  const d = syntheticLuna({ series: 24, candidates: 1500, positives: 45, seed: 4 });
  fs.writeFileSync(path.join(dir, 'candidates.csv'), d.candidates);
  const out = path.join(dir, 'luna shards'); // a space: the path travels quoted
  return shardFiles({ candidates: path.join(dir, 'candidates.csv'), worldSize: 3, outDir: out, seed: 1 });
}

/** Each rank read its own staged shard (not the source), and printed parseable LUNA lines. */
function checkRanks(runDir: string, shards: ReturnType<typeof makeShards>) {
  for (const rank of [0, 1, 2]) {
    const out = fs.readFileSync(path.join(runDir, 'logs', `rank-${rank}.out`), 'utf8');
    const e = shards.manifest.ranks[rank];
    const m = new RegExp(
      `^rank ${rank}/3 reads (.*)/luna shards/rank-${rank}\\.train\\.csv: (\\d+) candidates \\((\\d+) positive\\)`,
      'm',
    ).exec(out);
    if (!m) throw new Error(`rank ${rank} did not say what it read:\n${out}`);
    expect(m[1]).not.toBe(path.dirname(shards.outDir)); // the staged copy, not the shared source
    expect(m[1]).toMatch(/track-launch-/);
    expect([Number(m[2]), Number(m[3])]).toEqual([e.train.rows, e.train.positives]);
    const metrics = out.split('\n').flatMap((l) => lunaParser.parse(l)?.metrics ?? []);
    const keys = new Set(metrics.map((x) => `${x.key}@${x.step}`));
    for (let ep = 1; ep <= EPOCHS; ep++) {
      for (const k of [
        'trn/loss',
        'trn/correct',
        'trn/f1',
        'val/loss',
        'val/precision',
        'val_pos/correct',
        'val_neg/correct',
      ])
        expect(keys).toContain(`${k}@${ep}`);
    }
    for (const x of metrics) expect(Number.isFinite(x.value)).toBe(true);
  }
}

describe('LUNA example with staged shards', () => {
  beforeAll(() => requireCluster());

  it('runs on the 3-node cluster: every rank reads its node-local shard, tracked and reported', async () => {
    const shards = makeShards('luna-srun');
    const runDir = path.join(tmpDir('luna-run'), 'run');
    const env = clusterEnv();
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
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
      { env, timeoutMs: 220_000 },
    );
    if (r.code !== 0) throw new Error(`submit --stage failed:\n${said(r)}`);
    const jobId = jobIdOf(r);
    checkRanks(runDir, shards);
    const jobOut = fs.readFileSync(path.join(runDir, 'logs', 'job.out'), 'utf8');
    for (const node of ['tlnode1', 'tlnode2', 'tlnode3'])
      expect(jobOut).toContain(`staged ${shards.outDir} to ${node}:`);
    // Cleaned up at the end (the test nodes share this machine's /tmp).
    expect(fs.readdirSync('/tmp').filter((n) => n.startsWith(`track-launch-${jobId}.`))).toEqual([]);
    // Reported like the polynomial example.
    expect(fs.readdirSync(path.join(runDir, 'reports')).some((f) => f.endsWith('.pdf'))).toBe(true);
  });

  it('runs with the local executor', async () => {
    const shards = makeShards('luna-local');
    const runDir = path.join(tmpDir('luna-local-run'), 'run');
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
      { env: clusterEnv(), timeoutMs: 220_000 },
    );
    if (r.code !== 0) throw new Error(`submit --executor local --stage failed:\n${said(r)}`);
    checkRanks(runDir, shards);
  });
});
