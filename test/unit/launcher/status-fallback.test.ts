// SlurmClient.status asks scontrol, then sacct, then squeue, through a stubbed process runner.
import { TrackLaunchError } from '../../../core/errors';
import { SlurmClient } from '../../../launcher/slurm/client';
import { ProcessResult, ProcessRunner } from '../../../launcher/slurm/run-process';

// Recorded from Slurm 22.05.8: scontrol and the errors on the test cluster (accounting_storage/none),
// the job id changed to 4242; sacct from a cluster with accounting (as in slurm-parsing.test.ts).
const SACCT_OUT = `4242|FAILED|1:0|tlnode[1-3]|2026-12-02T10:00:01|2026-12-02T10:00:09|00:00:08|None
4242.batch|FAILED|1:0|tlnode1|2026-12-02T10:00:01|2026-12-02T10:00:09|00:00:08|
4242.0|FAILED|3:0|tlnode[1-3]|2026-12-02T10:00:02|2026-12-02T10:00:09|00:00:07|
`;
const SACCT_DISABLED = 'Slurm accounting storage is disabled\n';
const SCONTROL_OUT =
  'JobId=4242 JobName=poly-live UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901758 Nice=0 Account=(null) ' +
  'QOS=(null) JobState=COMPLETED Reason=None Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 ' +
  'RunTime=00:00:15 TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-12-02T16:26:27 EligibleTime=2026-12-02T16:26:27 ' +
  'AccrueTime=2026-12-02T16:26:27 StartTime=2026-12-02T16:26:28 EndTime=2026-12-02T16:26:43 Deadline=N/A ' +
  'SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T16:26:28 Scheduler=Main Partition=debug ' +
  'AllocNode:Sid=localhost:10666 ReqNodeList=(null) ExcNodeList=(null) NodeList=tlnode[1-3] BatchHost=tlnode1 ' +
  'NumNodes=3 NumCPUs=3 NumTasks=3 CPUs/Task=1 ReqB:S:C:T=0:0:*:* TRES=cpu=3,node=3,billing=3 Socks/Node=* ' +
  'NtasksPerN:B:S:C=1:0:*:* CoreSpec=* MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0 Features=(null) ' +
  'DelayBoot=00:00:00 OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null) ' +
  'Command=/tmp/tl-it-live-iOaoQM/run/job.sbatch WorkDir=/work/main StdErr=/tmp/tl-it-live-iOaoQM/run/logs/job.out ' +
  'StdIn=/dev/null StdOut=/tmp/tl-it-live-iOaoQM/run/logs/job.out Power= \n';
const INVALID_JOB = 'slurm_load_jobs error: Invalid job id specified\n';
const SQUEUE_OUT = '4242|PENDING|0:00||Resources\n';
// Recorded on the test cluster a second after a job was preempted (PreemptMode=REQUEUE), id changed:
// accounting shows the start that ended, slurmctld the job requeued.
const SACCT_PREEMPTED = `4242|PREEMPTED|0:0|tlnode3|2026-12-05T20:46:38|2026-12-05T20:46:40|00:00:02|None
4242.batch|CANCELLED|0:15|tlnode3|2026-12-05T20:46:38|2026-12-05T20:46:40|00:00:02|
`;
const SCONTROL_REQUEUED =
  'JobId=4242 JobName=victim UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901752 Nice=0 Account=root ' +
  'QOS=normal JobState=PENDING Reason=BeginTime Dependency=(null) Requeue=1 Restarts=1 BatchFlag=1 Reboot=0 ' +
  'ExitCode=0:0 RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-12-05T20:46:40 ' +
  'EligibleTime=2026-12-05T20:48:41 AccrueTime=2026-12-05T20:48:41 StartTime=2026-12-05T20:48:41 EndTime=Unknown ' +
  'Deadline=N/A SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-05T20:46:38 Scheduler=Main Partition=debug ' +
  'ReqNodeList=tlnode3 ExcNodeList=(null) NodeList= NumNodes=1 NumCPUs=1 NumTasks=1 Power= \n';

const SACCT_ARGV = [
  'sacct',
  '-j',
  '4242',
  '--parsable2',
  '--noheader',
  '--format=JobID,State,ExitCode,NodeList,Start,End,Elapsed,Reason',
];
const SCONTROL_ARGV = ['scontrol', 'show', 'job', '-o', '4242'];
const SQUEUE_ARGV = ['squeue', '-h', '-j', '4242', '-o', '%i|%T|%M|%N|%r'];

type Answer = Omit<ProcessResult, 'argv'>;
const ok = (stdout: string): Answer => ({ code: 0, stdout, stderr: '' });
const fails = (stderr: string): Answer => ({ code: 1, stdout: '', stderr });

/** A runner answering each exact command line; anything else fails the test. */
function stub(answers: Array<[string[], Answer]>): { run: ProcessRunner; calls: string[][] } {
  const calls: string[][] = [];
  const run: ProcessRunner = async (argv) => {
    calls.push(argv);
    const hit = answers.find(([a]) => a.join('\0') === argv.join('\0'));
    if (!hit) throw new Error(`unexpected command: ${argv.join(' ')}`);
    return { argv, ...hit[1] };
  };
  return { run, calls };
}

describe('SlurmClient.status: scontrol, then sacct, then squeue', () => {
  test('slurmctld knows the job: its answer is used and nothing else is asked', async () => {
    const { run, calls } = stub([[SCONTROL_ARGV, ok(SCONTROL_OUT)]]);
    await expect(new SlurmClient(run).status('4242')).resolves.toEqual({
      jobId: '4242',
      state: 'COMPLETED',
      exitCode: 0,
      signal: 0,
      nodes: 'tlnode[1-3]',
      reason: undefined,
      restarts: 0,
      source: 'scontrol',
    });
    expect(calls).toEqual([SCONTROL_ARGV]);
  });

  test('preempted and requeued: accounting shows the ended start, slurmctld the job pending again', async () => {
    const { run } = stub([
      [SACCT_ARGV, ok(SACCT_PREEMPTED)],
      [SCONTROL_ARGV, ok(SCONTROL_REQUEUED)],
    ]);
    await expect(new SlurmClient(run).status('4242')).resolves.toMatchObject({
      state: 'PENDING',
      reason: 'BeginTime',
      restarts: 1,
      source: 'scontrol',
    });
  });

  test('slurmctld forgot the job (invalid job id): the job line from sacct', async () => {
    const { run, calls } = stub([
      [SCONTROL_ARGV, fails(INVALID_JOB)],
      [SACCT_ARGV, ok(SACCT_OUT)],
    ]);
    await expect(new SlurmClient(run).status('4242')).resolves.toEqual({
      jobId: '4242',
      state: 'FAILED',
      exitCode: 1,
      signal: 0,
      nodes: 'tlnode[1-3]',
      reason: undefined,
      source: 'sacct',
    });
    expect(calls).toEqual([SCONTROL_ARGV, SACCT_ARGV]);
  });

  test('sacct has no line for the job (exit 0, empty): squeue is asked', async () => {
    const { run, calls } = stub([
      [SCONTROL_ARGV, fails(INVALID_JOB)],
      [SACCT_ARGV, ok('')],
      [SQUEUE_ARGV, ok(SQUEUE_OUT)],
    ]);
    const s = await new SlurmClient(run).status('4242');
    expect(s.source).toBe('squeue');
    expect(calls).toEqual([SCONTROL_ARGV, SACCT_ARGV, SQUEUE_ARGV]);
  });

  test('accounting disabled, scontrol: invalid job id -> squeue is used when it knows the job', async () => {
    const { run, calls } = stub([
      [SCONTROL_ARGV, fails(INVALID_JOB)],
      [SACCT_ARGV, fails(SACCT_DISABLED)],
      [SQUEUE_ARGV, ok(SQUEUE_OUT)],
    ]);
    await expect(new SlurmClient(run).status('4242')).resolves.toEqual({
      jobId: '4242',
      state: 'PENDING',
      nodes: undefined,
      reason: 'Resources',
      source: 'squeue',
    });
    expect(calls).toEqual([SCONTROL_ARGV, SACCT_ARGV, SQUEUE_ARGV]);
  });

  test('nothing knows the job: NOT_FOUND naming it, with what each command said', async () => {
    const { run, calls } = stub([
      [SCONTROL_ARGV, fails(INVALID_JOB)],
      [SACCT_ARGV, fails(SACCT_DISABLED)],
      [SQUEUE_ARGV, fails(INVALID_JOB)],
    ]);
    const err = await new SlurmClient(run).status('4242').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrackLaunchError);
    const e = err as TrackLaunchError;
    expect(e.code).toBe('NOT_FOUND');
    expect(e.exitCode).toBe(3);
    expect(e.message).toBe('Slurm does not know job 4242 (any more)');
    expect(e.hint).toContain('MinJobAge');
    expect(e.details).toEqual({
      jobId: '4242',
      errors: [
        'scontrol: slurm_load_jobs error: Invalid job id specified',
        'sacct: Slurm accounting storage is disabled',
        'squeue: slurm_load_jobs error: Invalid job id specified',
      ],
    });
    expect(calls).toEqual([SCONTROL_ARGV, SACCT_ARGV, SQUEUE_ARGV]);
  });

  test('squeue printing no line (exit 0) also ends in NOT_FOUND', async () => {
    const { run } = stub([
      [SCONTROL_ARGV, fails(INVALID_JOB)],
      [SACCT_ARGV, fails(SACCT_DISABLED)],
      [SQUEUE_ARGV, ok('')],
    ]);
    await expect(new SlurmClient(run).status('4242')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Slurm does not know job 4242 (any more)',
    });
  });

  test('sacct not installed: skipped, squeue answers', async () => {
    const calls: string[][] = [];
    const run: ProcessRunner = async (argv) => {
      calls.push(argv);
      if (argv[0] === 'sacct') throw new TrackLaunchError('COMMAND_FAILED', 'sacct was not found on PATH');
      return { argv, ...(argv[0] === 'scontrol' ? fails(INVALID_JOB) : ok(SQUEUE_OUT)) };
    };
    await expect(new SlurmClient(run).status('4242')).resolves.toMatchObject({
      state: 'PENDING',
      source: 'squeue',
    });
    expect(calls).toEqual([SCONTROL_ARGV, SACCT_ARGV, SQUEUE_ARGV]);
  });

  test('slurmctld unreachable: COMMAND_FAILED saying so, not NOT_FOUND', async () => {
    const unreachable = fails(
      'slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n',
    );
    const { run } = stub([
      [SCONTROL_ARGV, unreachable],
      [SACCT_ARGV, fails(SACCT_DISABLED)],
      [SQUEUE_ARGV, unreachable],
    ]);
    const err = (await new SlurmClient(run).status('4242').catch((e: unknown) => e)) as TrackLaunchError;
    expect(err).toBeInstanceOf(TrackLaunchError);
    expect(err.code).toBe('COMMAND_FAILED');
    expect(err.message).toBe('Slurm could not say what became of job 4242');
    expect(err.hint).toContain('scontrol ping');
    expect((err.details as { errors: string[] }).errors[0]).toContain('Unable to contact slurm controller');
  });
});
