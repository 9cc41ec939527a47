// Resource samples -> MLflow system metrics: the mapping (pure), and stage 1 on real files: each
// whole line once per rank of its node, wherever the writes and crashes fall.
import fc from 'fast-check';
import { promises as fs } from 'fs';
import * as path from 'path';
import type { ResourceSample } from '../../../core/resource-samples';
import { LocalSpool } from '../../../tracking-plugin/ingest/run-spool';
import { decodeRecords } from '../../../tracking-plugin/ingest/records';
import { linesToPoints, samplePoints } from '../../../tracking-plugin/system/points';
import { completeLines } from '../../../tracking-plugin/logs/lines';
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

describe('samplePoints', () => {
  it('uses MLflow names, 10^6-byte megabytes, t*1000 ms and the given step; skips nulls', () => {
    const ps = samplePoints(sample(), 7);
    expect(ps.every((p) => p.step === 7 && p.timestamp === 1796208210877)).toBe(true);
    expect(Object.fromEntries(ps.map((p) => [p.key, p.value]))).toEqual({
      'system/cpu_utilization_percentage': 100,
      'system/system_memory_usage_megabytes': 3502 * 1.048576,
      'system/system_memory_usage_percentage': (100 * 3502) / 24105,
      'system/gpu_0_utilization_percentage': 97,
      'system/gpu_0_memory_usage_megabytes': 61234 * 1.048576,
      'system/gpu_0_memory_usage_percentage': (100 * 61234) / 81920,
      'system/job_cpu_utilization_percentage': 24.4,
      'system/job_memory_rss_megabytes': 230,
    });
  });

  it('rounds t to the nearest ms (a float just below a whole ms is not cut to the one before)', () => {
    expect(samplePoints(sample({ t: 1796208210.978 }), 0)[0].timestamp).toBe(1796208210978);
    expect(samplePoints(sample({ gpus: undefined, mem_total_mb: 0 }), 0).map((p) => p.key)).not.toContain(
      'system/system_memory_usage_percentage',
    );
  });

  it('counts every whole line for the step, parses or not; refuses another version', () => {
    const text = `${JSON.stringify(sample())}\n{"version":1,"t":1,"dt\n${JSON.stringify(sample({ t: 1796208212 }))}\n`;
    const ps = linesToPoints(completeLines(Buffer.from(text), 0).lines, 10, 'f');
    expect([...new Set(ps.map((p) => p.step))]).toEqual([10, 12]);
    expect(() =>
      linesToPoints(
        completeLines(Buffer.from('{"version":2,"t":1,"dt":1,"job":{}}\n'), 0).lines,
        0,
        'node-x.resources.jsonl',
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

test("the real 3-node run: each rank gets its own node's samples, one step per line, none aggregated", async () => {
  const dir = await copyFixture();
  const spool = await LocalSpool.open(dir, undefined, undefined);
  await spool.step(undefined, true);
  for (const r of [0, 1, 2]) {
    const text = await fs.readFile(path.join(dir, 'logs', `node-tlnode${r + 1}.resources.jsonl`), 'utf8');
    const lines = text.trimEnd().split('\n');
    const pts = await spooled(dir, `rank-${r}.system.jsonl`);
    const cpu = pts.filter((p) => p.key === 'system/cpu_utilization_percentage');
    expect(cpu.map((p) => [p.step, p.value, p.timestamp])).toEqual(
      lines.map((l, i) => {
        const s = JSON.parse(l);
        return [i, s.cpu_util, Math.round(s.t * 1000)];
      }),
    );
    expect(spool.state.ranks[r].sys).toMatchObject({
      files: { [`tlnode${r + 1}`]: { bytes: Buffer.byteLength(text), lines: 7 } },
    });
  }
  expect((await spooled(dir, 'parent.jsonl')).some((p) => p.key.startsWith('system/'))).toBe(false);
  const before = spool.pointsSpooled;
  await (await LocalSpool.open(dir, undefined, undefined)).step(undefined, true); // again: nothing new
  expect((await LocalSpool.open(dir, undefined, undefined)).pointsSpooled).toBe(before);
});

test('a growing node file, torn lines and crashes between append and commit: each sample once per rank', async () => {
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
        JSON.stringify({ ...rankFacts(r, 2), host: 'n1' }),
      );
      await fs.writeFile(path.join(dir, 'logs', `rank-${r}.out`), r === 0 ? `${polyLine(0, 0, 2)}\n` : ''); // rank 1 prints nothing
    }
    return dir;
  };
  const full = await setup();
  await fs.writeFile(node(full), text);
  await (await LocalSpool.open(full, undefined, undefined)).step(undefined, false);
  const expected = await spooled(full, 'rank-0.system.jsonl');
  expect(new Set(expected.map((p) => p.step)).size).toBe(10);
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.nat(text.length), { maxLength: 8 }),
      fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      async (cuts, crash) => {
        const dir = await setup();
        const bounds = [...new Set([0, ...cuts, text.length])].sort((a, b) => a - b);
        for (let i = 1; i < bounds.length; i++) {
          await fs.appendFile(node(dir), text.slice(bounds[i - 1], bounds[i]));
          // rank 0 keeps logging in between: its log cursor advances while the system cursor must stay
          await appendLines(dir, 0, [polyLine(i, 0, 2)], 1764669000 + i);
          await (await LocalSpool.open(dir, undefined, undefined)).step(undefined, false);
          if (crash[i % 8])
            await fs.appendFile(
              path.join(dir, 'tracking', 'spool', 'rank-1.system.jsonl'),
              '["system/x",1,99,1]\n["sy',
            );
        }
        const s = await LocalSpool.open(dir, undefined, undefined);
        await s.step(undefined, false);
        for (const r of [0, 1]) expect(await spooled(dir, `rank-${r}.system.jsonl`)).toEqual(expected);
        expect(s.state.ranks[1].points).toBe(0); // rank 1 is there for its system metrics only
      },
    ),
    { numRuns: 25 },
  );
});

test('no host yet (rank facts not written): the samples wait, then come in full', async () => {
  const dir = await makeRunDir();
  await fs.writeFile(path.join(dir, 'logs', 'rank-0.out'), '');
  await fs.writeFile(
    path.join(dir, 'logs', 'node-n1.resources.jsonl'),
    JSON.stringify(sample({ host: 'n1' })) + '\n',
  );
  const s = await LocalSpool.open(dir, undefined, undefined);
  expect((await s.step(undefined, false)).added).toBe(0);
  await fs.writeFile(path.join(dir, 'logs', 'rank-0.json'), JSON.stringify(rankFacts(0, 1)));
  expect((await s.step(undefined, false)).added).toBe(8); // GPU 1 has only nulls
});
