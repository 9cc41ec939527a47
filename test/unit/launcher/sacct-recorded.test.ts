// sacct parsing on output recorded from the test cluster with accounting on (slurmdbd 22.05.8).
import * as fs from 'fs';
import * as path from 'path';
import {
  parseSacct,
  parseSacctDuration,
  parseSacctSize,
  parseSacctUsage,
} from '../../../launcher/slurm/job-status';
import { SlurmClient } from '../../../launcher/slurm/client';
import { ProcessRunner } from '../../../launcher/slurm/run-process';

const recorded = (name: string) =>
  fs.readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'slurm-output', name), 'utf8');

describe('sacct, recorded on the test cluster', () => {
  test('status fields: the job line of a finished job', () => {
    expect(parseSacct('1', recorded('testcluster.sacct-status.txt'))).toEqual({
      jobId: '1',
      state: 'COMPLETED',
      exitCode: 0,
      signal: 0,
      nodes: 'tlnode1',
      reason: undefined,
      source: 'sacct',
    });
  });

  test('usage (seff figures): CPU time from the job line, MaxRSS from the steps', () => {
    expect(parseSacctUsage('1', recorded('testcluster.sacct-usage-1node.txt'))).toEqual({
      jobId: '1',
      totalCpuS: 2.504,
      allocCpus: 1,
      elapsedS: 7,
      maxRssMiB: 168348 / 1024,
      maxRssNode: 'tlnode1',
    });
    expect(parseSacctUsage('13', recorded('testcluster.sacct-usage-3node.txt'))).toEqual({
      jobId: '13',
      totalCpuS: 3.202,
      allocCpus: 3,
      elapsedS: 3,
      maxRssMiB: 95408 / 1024,
      maxRssNode: 'tlnode1',
    });
    expect(parseSacctUsage('2', recorded('testcluster.sacct-usage-3node.txt'))).toBeUndefined();
  });

  test('durations and sizes in the forms sacct prints', () => {
    expect(parseSacctDuration('00:02.504')).toBeCloseTo(2.504);
    expect(parseSacctDuration('01:02:03')).toBe(3723);
    expect(parseSacctDuration('2-01:00:00')).toBe(176400);
    expect(parseSacctDuration('')).toBeUndefined();
    expect(parseSacctSize('168348K')).toBeCloseTo(164.4, 1);
    expect(parseSacctSize('1.5G')).toBe(1536);
    expect(parseSacctSize('0')).toBe(0);
    expect(parseSacctSize('')).toBeUndefined();
  });
});

describe('SlurmClient.status with accounting on', () => {
  const SACCT_RUNNING = '7|RUNNING|0:0|tlnode[1-3]|2026-12-03T07:38:39|Unknown|00:00:05|None\n';
  const SCONTROL_DONE =
    'JobId=7 JobName=t JobState=COMPLETED Reason=None Requeue=1 Restarts=1 BatchFlag=1 ExitCode=0:0 ' +
    'RunTime=00:00:06 StartTime=2026-12-03T07:38:39 EndTime=2026-12-03T07:38:45 NodeList=tlnode[1-3]\n';
  const runner =
    (answers: Record<string, string>, calls: string[]): ProcessRunner =>
    async (argv) => {
      calls.push(argv[0]);
      const out = answers[argv[0]];
      if (out === undefined) throw new Error(`unexpected ${argv.join(' ')}`);
      if (out === 'forgotten') return { argv, code: 1, stdout: '', stderr: 'Invalid job id specified\n' };
      return { argv, code: 0, stdout: out, stderr: '' };
    };

  test('slurmctld knows the job: its answer (fresher, with restarts); accounting is not asked', async () => {
    const calls: string[] = [];
    const s = await new SlurmClient(runner({ sacct: SACCT_RUNNING, scontrol: SCONTROL_DONE }, calls)).status(
      '7',
    );
    expect(s).toMatchObject({ state: 'COMPLETED', restarts: 1, source: 'scontrol' });
    expect(calls).toEqual(['scontrol']);
  });

  test('slurmctld forgot the job: the final state from sacct (recorded)', async () => {
    const calls: string[] = [];
    const s = await new SlurmClient(
      runner({ scontrol: 'forgotten', sacct: recorded('testcluster.sacct-status.txt') }, calls),
    ).status('1');
    expect(s).toMatchObject({ state: 'COMPLETED', exitCode: 0, source: 'sacct' });
    expect(calls).toEqual(['scontrol', 'sacct']);
  });
});
