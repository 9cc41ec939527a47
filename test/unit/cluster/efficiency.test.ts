import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { formatEfficiency, readEfficiency } from '../../../launcher/cluster/efficiency';
import { parseResources, ResourceSample, summarizeJob, summarizeNode } from '../../../core/resource-samples';
import { TrackLaunchError } from '../../../core/errors';
import { fixture } from './helpers';

const sample = (over: Partial<ResourceSample> & { t: number }): ResourceSample => ({
  version: 1,
  dt: 10,
  host: 'gpu-01',
  ncpu: 128,
  cpu_util: 50,
  mem_used_mb: 100000,
  mem_total_mb: 515000,
  alloc_cpus: 32,
  alloc_mem_mb: 256000,
  job: { nproc: 5, cpu_s: 80, cpu_util: 800, rss_mb: 40000 },
  ...over,
});

describe('resource samples', () => {
  test('recorded on the test cluster: one file per node, sane numbers', () => {
    for (const n of [1, 2, 3]) {
      const s = parseResources(fixture(`testcluster.node-tlnode${n}.resources.jsonl`));
      expect(s.length).toBe(6);
      for (const x of s) {
        expect(x).toMatchObject({ version: 1, host: `tlnode${n}`, alloc_cpus: 1, alloc_mem_mb: 1000 });
        expect(x.cpu_util).toBeGreaterThanOrEqual(0);
        expect(x.cpu_util).toBeLessThanOrEqual(100);
        expect(x.mem_used_mb).toBeLessThan(x.mem_total_mb);
        expect(x.gpus).toBeUndefined();
      }
      // The task held 200 MiB for most of the samples.
      expect(Math.max(...s.map((x) => x.job.rss_mb))).toBeGreaterThan(200);
    }
  });

  test('torn and blank lines are skipped; other versions refused', () => {
    const ok = JSON.stringify(sample({ t: 1 }));
    expect(parseResources(`${ok}\n\n${ok}\n{"version":1,"t":`)).toHaveLength(2);
    expect(() => parseResources('{"version":2,"t":1}\n', 'logs/node-x.resources.jsonl')).toThrow(
      TrackLaunchError,
    );
    expect(() => parseResources('{"version":2,"t":1}\n', 'logs/node-x.resources.jsonl')).toThrow(
      'logs/node-x.resources.jsonl: sample version 2 is not one this track-launch reads (it reads version 1)',
    );
  });

  test('node and job summaries: CPU efficiency against the allocation, peaks, GPU busy', () => {
    const gpus = (u0: number | null, u1: number, m: number) => [
      { index: 0, util: u0, mem_used_mb: m, mem_total_mb: 81920 },
      { index: 1, util: u1, mem_used_mb: 1000, mem_total_mb: 81920 },
    ];
    const a = summarizeNode('gpu-01', [
      sample({ t: 10, gpus: gpus(100, 0, 50000) }),
      sample({
        t: 20,
        job: { nproc: 5, cpu_s: 160, cpu_util: 1600, rss_mb: 60000 },
        gpus: gpus(null, 50, 70000),
      }),
    ]);
    expect(a).toMatchObject({
      samples: 2,
      covered_s: 20,
      job_cpu_s: 240,
      alloc_cpus: 32,
      cpu_efficiency: 37.5,
      job_rss_peak_mb: 60000,
      first_t: 0,
      last_t: 20,
    });
    expect(a.gpus).toEqual([
      { index: 0, util_mean: 100, mem_peak_mb: 70000, mem_total_mb: 81920 },
      { index: 1, util_mean: 25, mem_peak_mb: 1000, mem_total_mb: 81920 },
    ]);
    const b = summarizeNode('gpu-02', [
      sample({ t: 10, host: 'gpu-02', job: { nproc: 1, cpu_s: 320, cpu_util: 3200, rss_mb: 1000 } }),
    ]);
    const job = summarizeJob([a, b]);
    expect(job.cpu_efficiency).toBeCloseTo((100 * 560) / (20 * 32 + 10 * 32));
    expect(job.mem_peak).toEqual({ host: 'gpu-01', rss_mb: 60000, alloc_mem_mb: 256000 });
    expect(job.gpu_busy_mean).toBeCloseTo(62.5);
    expect(job.gpu_mem_peak).toEqual({ host: 'gpu-01', index: 0, mem_mb: 70000, total_mb: 81920 });
    expect(formatEfficiency(job)).toEqual([
      '  efficiency: 3 sample(s) from 2 node(s)',
      '    CPU:     58.3% of 00:16:00 core-walltime (00:09:20 CPU time; 64 CPUs allocated)',
      '    memory:  peak 58.6 GiB RSS on gpu-01, 23.4% of 250 GiB per node',
      '    GPU:     busy 62.5% on average over 2 GPU(s); memory peak 68.4 GiB of 80 GiB (GPU 0 on gpu-01)',
      '    gpu-01  cpu 37.5% of 32  rss peak 58.6 GiB  node cpu 50.0%  gpu 100.0% 25.0%',
      '    gpu-02  cpu 100.0% of 32  rss peak 1000 MiB  node cpu 50.0%',
    ]);
  });

  test('readEfficiency reads a run directory; nothing without samples', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-eff-'));
    expect(formatEfficiency(readEfficiency(dir))).toEqual([]);
    fs.mkdirSync(path.join(dir, 'logs'));
    for (const n of [1, 2, 3])
      fs.writeFileSync(
        path.join(dir, 'logs', `node-tlnode${n}.resources.jsonl`),
        fixture(`testcluster.node-tlnode${n}.resources.jsonl`),
      );
    fs.writeFileSync(path.join(dir, 'logs', 'rank-0.out'), 'not a sample file\n');
    const e = readEfficiency(dir);
    expect(e.nodes.map((n) => n.host)).toEqual(['tlnode1', 'tlnode2', 'tlnode3']);
    const lines = formatEfficiency(e);
    expect(lines[0]).toBe('  efficiency: 18 sample(s) from 3 node(s)');
    expect(lines[1]).toMatch(
      /^ {4}CPU: {5}\d+\.\d% of 00:00:\d\d core-walltime \(00:00:\d\d CPU time; 3 CPUs allocated\)$/,
    );
    expect(lines[2]).toMatch(
      /^ {4}memory: {2}peak 2\d\d MiB RSS on tlnode\d, 2\d\.\d% of 1000 MiB per node$/,
    );
    expect(lines.some((l) => l.includes('GPU:'))).toBe(false);
    expect(lines.slice(3)).toHaveLength(3);
  });
});
