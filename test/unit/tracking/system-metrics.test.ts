// Resource samples -> MLflow system metrics: the mapping (pure), and the spool stage on real files:
// each whole line once on the node's stream for the parent run, and only its own GPU on a rank's
// stream, wherever the writes and crashes fall.
import fc from 'fast-check';
import { promises as fs } from 'fs';
import * as path from 'path';
import type { ResourceSample } from '../../../core/resource-samples';
import { SpoolStage } from '../../../tracking-plugin/ingest/spool-stage';
import { decodeRecords } from '../../../tracking-plugin/ingest/records';
import { linesToPoints, nodePoints, rankPoints } from '../../../tracking-plugin/system/points';
import { LineBatch } from '../../../tracking-plugin/logs/lines';
import { appendLines, jobRecord, makeRunDir, polyLine, rankFacts, writeJob } from './fixture';

jest.setTimeout(30_000); // the property test writes and ingests a few hundred small files
const FIXTURE = path.join(__dirname, '..', '..', 'fixtures', 'runs', 'polynomial-3-nodes');

const sample = (over: Partial<ResourceSample> = {}): ResourceSample => ({
  version: 1,
  t: 1796208210.87703,
  dt: 1.023,
  host: 'gpu-01',
  ncpu: 2,
  cpu_util: 100,
  mem_used_mb: 3502,
  mem_total_mb: 24105,
  alloc_cpus: 1,
  alloc_mem_mb: 1000,
  job: { nproc: 6, cpu_s: 0.25, cpu_util: 24.4, rss_mb: 230 },
  gpus: [
    { index: 0, util: 97, mem_used_mb: 61234, mem_total_mb: 81920 },
    { index: 1, util: null, mem_used_mb: null, mem_total_mb: null },
  ],
  ...over,
});

/** MiB (the sampler's unit) to MLflow's megabytes (10^6 bytes), written out here, not imported. */
const toMB = (mib: number) => (mib * 1024 * 1024) / 1e6;

describe('nodePoints and rankPoints', () => {
  it('node: MLflow names under system/<host>/, 10^6-byte megabytes, t*1000 ms, the given step; skips nulls', () => {
    const ps = nodePoints(sample(), 'gpu-01', 7);
    expect(ps.every((p) => p.step === 7 && p.timestamp === 1796208210877)).toBe(true);
    expect(Object.fromEntries(ps.map((p) => [p.key, p.value]))).toEqual({
      'system/gpu-01/cpu_utilization_percentage': 100,
      'system/gpu-01/system_memory_usage_megabytes': toMB(3502),
      'system/gpu-01/system_memory_usage_percentage': (100 * 3502) / 24105,
      'system/gpu-01/gpu_0_utilization_percentage': 97,
      'system/gpu-01/gpu_0_memory_usage_megabytes': toMB(61234),
      'system/gpu-01/gpu_0_memory_usage_percentage': (100 * 61234) / 81920,
      'system/gpu-01/job_cpu_utilization_percentage': 24.4,
      'system/gpu-01/job_memory_rss_megabytes': toMB(230),
    });
    expect(toMB(230)).toBeCloseTo(241.172, 3); // 230 MiB = 241,172,480 bytes
  });

  it('rank: only the GPU of its local rank, under MLflow single-node names; nothing else', () => {
    const ps = rankPoints(sample(), 0, 3);
    expect(Object.fromEntries(ps.map((p) => [p.key, p.value]))).toEqual({
      'system/gpu_0_utilization_percentage': 97,
      'system/gpu_0_memory_usage_megabytes': toMB(61234),
      'system/gpu_0_memory_usage_percentage': (100 * 61234) / 81920,
    });
    expect(ps.every((p) => p.step === 3 && p.timestamp === 1796208210877)).toBe(true);
    expect(rankPoints(sample(), 1, 0)).toEqual([]); // GPU 1 has only nulls
    expect(rankPoints(sample(), 2, 0)).toEqual([]); // no GPU 2
    expect(rankPoints(sample({ gpus: undefined }), 0, 0)).toEqual([]); // no GPUs: no per-process figures either
  });

  it('rounds t to the nearest ms (a float just below a whole ms is not cut to the one before)', () => {
    expect(nodePoints(sample({ t: 1796208210.978 }), 'h', 0)[0].timestamp).toBe(1796208210978);
    expect(nodePoints(sample({ gpus: undefined, mem_total_mb: 0 }), 'h', 0).map((p) => p.key)).not.toContain(
      'system/h/system_memory_usage_percentage',
    );
  });

  it('counts every whole line for the step, parses or not; refuses another version', () => {
    const text = `${JSON.stringify(sample())}\n{"version":1,"t":1,"dt\n${JSON.stringify(sample({ t: 1796208212 }))}\n`;
    const node = (x: ResourceSample, step: number) => nodePoints(x, 'h', step);
    const ps = linesToPoints(new LineBatch(Buffer.from(text), 0).toLogLines(), 10, 'f', node);
    expect([...new Set(ps.map((p) => p.step))]).toEqual([10, 12]);
    expect(() =>
      linesToPoints(
        new LineBatch(Buffer.from('{"version":2,"t":1,"dt":1,"job":{}}\n'), 0).toLogLines(),
        0,
        'node-x.resources.jsonl',
        node,
      ),
    ).toThrow(/node-x\.resources\.jsonl: sample version 2/);
  });
});

const spooled = async (dir: string, name: string) =>
  decodeRecords(
    await fs.readFile(path.join(dir, 'tracking', 'spool', name)).catch(() => Buffer.alloc(0)),
    0,
  ).map((r) => r.point);

/** A copy of the real 3-node run (tlnode1..3, one rank each, 7 samples per node). */
async function copyFixture(): Promise<string> {
  const dir = await makeRunDir();
  await fs.copyFile(path.join(FIXTURE, 'job.json'), path.join(dir, 'job.json'));
  for (const f of await fs.readdir(path.join(FIXTURE, 'logs')))
    await fs.copyFile(path.join(FIXTURE, 'logs', f), path.join(dir, 'logs', f));
  return dir;
}

/** The metrics a fixture line must give on the parent, computed from the JSON here (MiB -> 10^6 B). */
function expectedNode(host: string, line: string, step: number): [string, number, number, number][] {
  const x = JSON.parse(line);
  const ms = Math.round(x.t * 1000);
  const row = (name: string, v: number): [string, number, number, number] => [
    `system/${host}/${name}`,
    step,
    v,
    ms,
  ];
  return [
    row('cpu_utilization_percentage', x.cpu_util),
    row('system_memory_usage_megabytes', toMB(x.mem_used_mb)),
    row('system_memory_usage_percentage', (100 * x.mem_used_mb) / x.mem_total_mb),
    row('job_cpu_utilization_percentage', x.job.cpu_util),
    row('job_memory_rss_megabytes', toMB(x.job.rss_mb)),
  ];
}

test('the real 3-node run: each node once on its parent stream, per-node keys; no rank copies', async () => {
  const dir = await copyFixture();
  const spool = await SpoolStage.open(dir, undefined, undefined);
  await spool.step(undefined, true);
  let total = 0;
  for (const host of ['tlnode1', 'tlnode2', 'tlnode3']) {
    const text = await fs.readFile(path.join(dir, 'logs', `node-${host}.resources.jsonl`), 'utf8');
    const lines = text.trimEnd().split('\n');
    const want = lines.flatMap((l, i) => expectedNode(host, l, i));
    const got = (await spooled(dir, `node-${host}.system.jsonl`)).map((p) => [
      p.key,
      p.step,
      p.value,
      p.timestamp,
    ]);
    expect(got).toHaveLength(want.length); // one series per metric, one point per line: no copies
    expect(got).toEqual(expect.arrayContaining(want));
    expect(spool.state.nodes?.[host]).toMatchObject({
      files: { [host]: { bytes: Buffer.byteLength(text), lines: 7 } },
      points: 7 * 5,
    });
    total += want.length;
  }
  for (const r of [0, 1, 2]) expect(await spooled(dir, `rank-${r}.system.jsonl`)).toEqual([]); // no GPUs here
  expect((await spooled(dir, 'parent.jsonl')).some((p) => p.key.startsWith('system/'))).toBe(false);
  const before = spool.pointsSpooled;
  expect(
    before - Object.values(spool.state.ranks).reduce((n, c) => n + c.points, 0) - spool.state.parent.points,
  ).toBe(total);
  await (await SpoolStage.open(dir, undefined, undefined)).step(undefined, true); // again: nothing new
  expect((await SpoolStage.open(dir, undefined, undefined)).pointsSpooled).toBe(before);
});

test('a growing node file, torn lines and crashes between append and commit: each sample once per stream', async () => {
  const lines = Array.from(
    { length: 10 },
    (_, i) => JSON.stringify(sample({ host: 'n1', t: 1764669000 + i })) + '\n',
  );
  const text = lines.join('');
  const node = (dir: string) => path.join(dir, 'logs', 'node-n1.resources.jsonl');
  const setup = async () => {
    const dir = await makeRunDir();
    await writeJob(dir, jobRecord({}, 2));
    for (const r of [0, 1]) {
      await fs.writeFile(
        path.join(dir, 'logs', `rank-${r}.json`),
        JSON.stringify({ ...rankFacts(r, 2), host: 'n1', local_rank: r, local_world_size: 2 }),
      );
      await fs.writeFile(path.join(dir, 'logs', `rank-${r}.out`), r === 0 ? `${polyLine(0, 0, 2)}\n` : ''); // rank 1 prints nothing
    }
    return dir;
  };
  // computed from the lines, not by the code under test: 8 node figures a line (GPU 1 is all nulls),
  // GPU 0's three for rank 0 (local rank 0), none for rank 1 (its GPU has no readings)
  const wantNode = lines.flatMap((_, i) => {
    const ms = (1764669000 + i) * 1000;
    return [
      ['system/n1/cpu_utilization_percentage', 100],
      ['system/n1/system_memory_usage_megabytes', toMB(3502)],
      ['system/n1/system_memory_usage_percentage', (100 * 3502) / 24105],
      ['system/n1/gpu_0_utilization_percentage', 97],
      ['system/n1/gpu_0_memory_usage_megabytes', toMB(61234)],
      ['system/n1/gpu_0_memory_usage_percentage', (100 * 61234) / 81920],
      ['system/n1/job_cpu_utilization_percentage', 24.4],
      ['system/n1/job_memory_rss_megabytes', toMB(230)],
    ].map(([key, value]) => ({ key, value, step: i, timestamp: ms }));
  });
  const wantRank0 = wantNode
    .filter((p) => (p.key as string).includes('/gpu_0_'))
    .map((p) => ({ ...p, key: (p.key as string).replace('system/n1/', 'system/') }));
  const sorted = <T extends { key: unknown; step: number }>(ps: T[]) =>
    [...ps].sort((a, b) => a.step - b.step || String(a.key).localeCompare(String(b.key)));
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.nat(text.length), { maxLength: 8 }),
      fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      async (cuts, crash) => {
        const dir = await setup();
        const bounds = [...new Set([0, ...cuts, text.length])].sort((a, b) => a - b);
        for (let i = 1; i < bounds.length; i++) {
          await fs.appendFile(node(dir), text.slice(bounds[i - 1], bounds[i]));
          // rank 0 keeps logging in between: its log cursor advances while the system cursors must stay
          await appendLines(dir, 0, [polyLine(i, 0, 2)], 1764669000 + i);
          await (await SpoolStage.open(dir, undefined, undefined)).step(undefined, false);
          // a crash after the append, before state.json: uncommitted records on every system stream
          if (crash[i % 8])
            for (const f of ['node-n1.system.jsonl', 'rank-0.system.jsonl', 'rank-1.system.jsonl'])
              await fs.appendFile(path.join(dir, 'tracking', 'spool', f), '["system/x",1,99,1]\n["sy');
        }
        const s = await SpoolStage.open(dir, undefined, undefined);
        await s.step(undefined, false);
        expect(sorted(await spooled(dir, 'node-n1.system.jsonl'))).toEqual(sorted(wantNode));
        expect(sorted(await spooled(dir, 'rank-0.system.jsonl'))).toEqual(sorted(wantRank0));
        expect(await spooled(dir, 'rank-1.system.jsonl')).toEqual([]);
        expect(s.state.ranks[1].points).toBe(0); // rank 1 is there for its system stream only
      },
    ),
    { numRuns: 25 },
  );
});

test('no rank facts yet: the node stream goes ahead, the rank waits for its local rank, then comes in full', async () => {
  const dir = await makeRunDir();
  await fs.writeFile(path.join(dir, 'logs', 'rank-0.out'), '');
  await fs.writeFile(
    path.join(dir, 'logs', 'node-n1.resources.jsonl'),
    JSON.stringify(sample({ host: 'n1' })) + '\n',
  );
  const s = await SpoolStage.open(dir, undefined, undefined);
  expect((await s.step(undefined, false)).added).toBe(8); // the node's 8 figures (GPU 1 has only nulls)
  expect(await spooled(dir, 'rank-0.system.jsonl')).toEqual([]);
  await fs.writeFile(path.join(dir, 'logs', 'rank-0.json'), JSON.stringify(rankFacts(0, 1))); // n1, local rank 0
  expect((await s.step(undefined, false)).added).toBe(3); // GPU 0's three, on the rank; the node: nothing new
  expect((await spooled(dir, 'rank-0.system.jsonl')).map((p) => p.key)).toEqual([
    'system/gpu_0_utilization_percentage',
    'system/gpu_0_memory_usage_megabytes',
    'system/gpu_0_memory_usage_percentage',
  ]);
});
