// seff's figures from accounting: CPU efficiency = TotalCPU / (AllocCPUS x Elapsed), the largest
// MaxRSS over the steps with its node; SlurmClient.usage asks sacct for them.
import * as fs from 'fs';
import * as path from 'path';
import {
  accountingEfficiency,
  formatAccountingEfficiency,
  readAccountingEfficiency,
} from '../../../launcher/cluster/efficiency';
import { SlurmClient } from '../../../launcher/slurm/client';
import { ProcessRunner } from '../../../launcher/slurm/run-process';
import { TrackLaunchError } from '../../../core';

const recorded = (name: string) =>
  fs.readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'slurm-output', name), 'utf8');

describe('accountingEfficiency (pure)', () => {
  test('CPU efficiency is CPU time over allocated CPUs times elapsed time', () => {
    // 3 CPUs for 60 s = 180 core-seconds; 45 s of CPU used: a quarter.
    const a = accountingEfficiency({ jobId: '5', totalCpuS: 45, allocCpus: 3, elapsedS: 60 });
    expect(a).toEqual({
      source: 'sacct',
      cpu_efficiency: 25,
      cpu_s: 45,
      core_walltime_s: 180,
      alloc_cpus: 3,
      elapsed_s: 60,
      max_rss_mb: null,
      max_rss_node: null,
      mem_efficiency: null,
    });
  });

  test('memory: the peak and its node; a share of the memory per node when it is known', () => {
    const u = { jobId: '5', totalCpuS: 1, allocCpus: 1, elapsedS: 1, maxRssMiB: 500, maxRssNode: 'n2' };
    expect(accountingEfficiency(u)).toMatchObject({
      max_rss_mb: 500,
      max_rss_node: 'n2',
      mem_efficiency: null,
    });
    expect(accountingEfficiency(u, 2000).mem_efficiency).toBe(25);
  });

  test('a job that never ran (0 s or 0 CPUs) has no CPU efficiency rather than NaN or Infinity', () => {
    expect(
      accountingEfficiency({ jobId: '5', totalCpuS: 0, allocCpus: 3, elapsedS: 0 }).cpu_efficiency,
    ).toBeNull();
    expect(
      accountingEfficiency({ jobId: '5', totalCpuS: 2, allocCpus: 0, elapsedS: 9 }).cpu_efficiency,
    ).toBeNull();
  });

  test('one line for status, in seff words', () => {
    const lines = formatAccountingEfficiency(
      accountingEfficiency(
        { jobId: '5', totalCpuS: 45, allocCpus: 3, elapsedS: 60, maxRssMiB: 500, maxRssNode: 'n2' },
        2000,
      ),
    );
    expect(lines).toEqual([
      '  accounting: CPU 25.0% of 00:03:00 core-walltime (00:00:45 CPU time; 3 CPUs x 00:01:00), max RSS 500 MiB on n2 (25.0% of the memory per node) (sacct)',
    ]);
  });
});

describe('SlurmClient.usage and readAccountingEfficiency', () => {
  const answering =
    (out: string, code = 0, calls: string[][] = []): ProcessRunner =>
    async (argv) => {
      calls.push(argv);
      return { argv, code, stdout: code === 0 ? out : '', stderr: code === 0 ? '' : out };
    };

  test('recorded 3-node job: the job line (3.202 s on 3 CPUs for 3 s), the steps peak 95408K on tlnode1', async () => {
    const calls: string[][] = [];
    const a = await readAccountingEfficiency(
      '13',
      undefined,
      new SlurmClient(answering(recorded('testcluster.sacct-usage-3node.txt'), 0, calls)),
    );
    expect(calls).toEqual([
      [
        'sacct',
        '-j',
        '13',
        '--parsable2',
        '--noheader',
        '--format=JobID,TotalCPU,AllocCPUS,ElapsedRaw,MaxRSS,MaxRSSNode',
      ],
    ]);
    expect(a?.cpu_efficiency).toBeCloseTo((100 * 3.202) / (3 * 3), 6);
    expect(a).toMatchObject({ max_rss_mb: 95408 / 1024, max_rss_node: 'tlnode1' });
  });

  test('accounting off, sacct missing, or a job sacct does not have yet: undefined, not an error', async () => {
    const off = answering('sacct: error: Slurm accounting storage is disabled', 1);
    expect(await new SlurmClient(off).usage('13')).toBeUndefined();
    const missing: ProcessRunner = async () => {
      throw new TrackLaunchError('COMMAND_FAILED', 'sacct was not found on PATH');
    };
    expect(await new SlurmClient(missing).usage('13')).toBeUndefined();
    expect(await new SlurmClient(answering('')).usage('13')).toBeUndefined();
  });
});
