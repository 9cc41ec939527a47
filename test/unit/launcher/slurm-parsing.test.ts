import * as fc from 'fast-check';
import {
  parseSacct,
  parseSbatchParsable,
  parseScontrolJob,
  parseSqueue,
} from '../../../launcher/slurm/job-status';
import { baseState, jobState, parseExitCode } from '../../../core/job-states';
import { parseSlurmMemoryMiB, parseSlurmTime } from '../../../launcher/spec/slurm-time';

// Recorded from Slurm 22.05 (sacct from a cluster with accounting; scontrol/squeue from the test cluster).
const SACCT = `4242|FAILED|1:0|tlnode[1-3]|2026-12-02T10:00:01|2026-12-02T10:00:09|00:00:08|None
4242.batch|FAILED|1:0|tlnode1|2026-12-02T10:00:01|2026-12-02T10:00:09|00:00:08|
4242.0|FAILED|3:0|tlnode[1-3]|2026-12-02T10:00:02|2026-12-02T10:00:09|00:00:07|
`;
const SCONTROL =
  'JobId=17 JobName=train UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=1 Nice=0 Account=(null) QOS=(null) ' +
  'JobState=CANCELLED Reason=None Dependency=(null) Requeue=1 Restarts=2 BatchFlag=1 Reboot=0 ExitCode=0:15 ' +
  'RunTime=00:00:12 TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-12-02T10:00:00 StartTime=2026-12-02T10:00:01 ' +
  'EndTime=2026-12-02T10:00:13 Partition=debug NodeList=tlnode[1-3] BatchHost=tlnode1 NumNodes=3 NumCPUs=3 ' +
  'Command=/tmp/run dir/job.sbatch WorkDir=/tmp StdOut=/tmp/run dir/logs/job.out';

describe('Slurm output parsing', () => {
  test('sacct: the job line, not its steps', () => {
    expect(parseSacct('4242', SACCT)).toEqual({
      jobId: '4242',
      state: 'FAILED',
      exitCode: 1,
      signal: 0,
      nodes: 'tlnode[1-3]',
      reason: undefined,
      source: 'sacct',
    });
    expect(parseSacct('999', SACCT)).toBeUndefined();
  });

  test('scontrol show job -o: values with spaces, restarts, signal', () => {
    const s = parseScontrolJob('17', SCONTROL)!;
    expect(s).toMatchObject({
      state: 'CANCELLED',
      exitCode: 0,
      signal: 15,
      restarts: 2,
      nodes: 'tlnode[1-3]',
    });
    expect(s.reason).toBeUndefined();
  });

  test('squeue -o "%i|%T|%M|%N|%r"', () => {
    expect(parseSqueue('5', '5|PENDING|0:00||Resources\n')).toMatchObject({
      state: 'PENDING',
      reason: 'Resources',
      nodes: undefined,
    });
    expect(parseSqueue('5', '6|RUNNING|0:03|tlnode1|None\n')).toBeUndefined();
  });

  test('sbatch --parsable: id, id;cluster, array id', () => {
    expect(parseSbatchParsable('123\n')).toEqual({ jobId: '123', cluster: undefined });
    expect(parseSbatchParsable('123;tl\n')).toEqual({ jobId: '123', cluster: 'tl' });
    expect(parseSbatchParsable('sbatch: error: x')).toBeUndefined();
  });
});

describe('job states', () => {
  test('every base state maps, with UNKNOWN for the rest', () => {
    const table: Array<[string, string, boolean]> = [
      ['PENDING', 'PENDING', false],
      ['CONFIGURING', 'CONFIGURING', false],
      ['RUNNING', 'RUNNING', false],
      ['COMPLETING', 'COMPLETING', false],
      ['SUSPENDED', 'SUSPENDED', false],
      ['REQUEUED', 'REQUEUED', false],
      ['RESIZING', 'RESIZING', false],
      ['COMPLETED', 'COMPLETED', true],
      ['FAILED', 'FAILED', true],
      ['CANCELLED by 1000', 'CANCELLED', true],
      ['TIMEOUT', 'TIMEOUT', true],
      ['NODE_FAIL', 'NODE_FAIL', true],
      ['PREEMPTED', 'PREEMPTED', true],
      ['BOOT_FAIL', 'BOOT_FAIL', true],
      ['DEADLINE', 'DEADLINE', true],
      ['OUT_OF_MEMORY', 'OUT_OF_MEMORY', true],
      ['RUNNING+', 'RUNNING', false],
      ['CD', 'COMPLETED', true],
      ['OOM', 'OUT_OF_MEMORY', true],
      ['SPECIAL_EXIT', 'UNKNOWN', false],
      ['', 'UNKNOWN', false],
    ];
    for (const [raw, base, terminal] of table) {
      const s = baseState(raw);
      expect([raw, s, jobState(s).final]).toEqual([raw, base, terminal]);
    }
  });

  test('exit codes are code:signal', () => {
    expect(parseExitCode('0:0')).toEqual({ code: 0, signal: 0 });
    expect(parseExitCode('1:9')).toEqual({ code: 1, signal: 9 });
    expect(parseExitCode('x')).toBeUndefined();
  });

  test('baseState never throws on arbitrary text', () => {
    fc.assert(fc.property(fc.string(), (s) => typeof baseState(s) === 'string'));
  });
});

describe('Slurm times and sizes', () => {
  test.each([
    ['30', 1800],
    ['30:15', 1815],
    ['1:30:00', 5400],
    ['2-0', 172800],
    ['2-12', 216000],
    ['2-12:30', 217800],
    ['2-12:30:15', 217815],
    ['INFINITE', Infinity],
    ['unlimited', Infinity],
    ['0', Infinity], // sbatch: zero requests no time limit
    ['-1', Infinity],
  ])('%s = %d s', (t, s) => expect(parseSlurmTime(t)).toBe(s));

  test.each(['', 'x', '1:60', '1:00:60', '2-24', '-5', '1:2:3:4'])('%j is not a time', (t) =>
    expect(parseSlurmTime(t)).toBeUndefined(),
  );

  test('HH:MM:SS round-trips for any duration', () => {
    fc.assert(
      fc.property(
        fc.nat(99),
        fc.nat(59),
        fc.nat(59),
        (h, m, s) => parseSlurmTime(`${h}:${m}:${s}`) === (h * 60 + m) * 60 + s,
      ),
    );
  });

  test('memory sizes', () => {
    expect(parseSlurmMemoryMiB('4000')).toBe(4000);
    expect(parseSlurmMemoryMiB('16G')).toBe(16384);
    expect(parseSlurmMemoryMiB('1T')).toBe(1048576);
    expect(parseSlurmMemoryMiB('4 GB')).toBeUndefined();
  });
});
