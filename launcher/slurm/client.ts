// Submit, watch and cancel Slurm jobs through the Slurm commands (sbatch, sacct, scontrol,
// squeue, scancel). The process runner is injected so unit tests can stub it.
import { TrackLaunchError } from '../../core';
import {
  JobStatus,
  parseSacct,
  parseSbatchParsable,
  parseScontrolJob,
  parseSacctUsage,
  parseSqueue,
  SACCT_FIELDS,
  SACCT_USAGE_FIELDS,
  SacctUsage,
  SQUEUE_FORMAT,
} from './job-status';
import { mergeArrayStatus, parseSacctArray, parseScontrolArray } from './array-status';
import { commandFailed, ProcessResult, ProcessRunner, runProcess } from './run-process';

/** What scontrol and squeue print for a job slurmctld does not know (never had, or purged). */
const INVALID_JOB = /Invalid job id/i;

export class SlurmClient {
  constructor(private readonly run: ProcessRunner = runProcess) {}

  async submit(
    argv: string[],
    cwd: string,
    env?: NodeJS.ProcessEnv,
  ): Promise<{ jobId: string; cluster?: string }> {
    const r = await this.run(argv, { cwd, ...(env ? { env } : {}) });
    if (r.code !== 0)
      throw commandFailed(
        r,
        'sbatch refused the job',
        'Check the options named in the message; `track-launch submit --dry-run` prints the script.',
      );
    const parsed = parseSbatchParsable(r.stdout);
    if (!parsed)
      throw new TrackLaunchError(
        'COMMAND_FAILED',
        `sbatch printed no job id: ${JSON.stringify(r.stdout.trim())}`,
      );
    return parsed;
  }

  /**
   * scontrol while slurmctld knows the job: it decides requeues and has the restart count, where
   * accounting lags behind it and shows a requeued job's ended start (PREEMPTED, NODE_FAIL) for a
   * moment. sacct once slurmctld forgot the job; squeue last. A command that is not installed (sacct
   * often is not) is skipped. NOT_FOUND only when one of them said it does not know the job; when
   * none could answer at all (slurmctld down), COMMAND_FAILED.
   */
  async status(jobId: string): Promise<JobStatus> {
    const errors: string[] = [];
    let unknown = false; // a command answered, and it does not know the job
    const ask = async (argv: string[], parse: (out: string) => JobStatus | undefined) => {
      let r: ProcessResult;
      try {
        r = await this.run(argv);
      } catch (e) {
        if (!(e instanceof TrackLaunchError)) throw e;
        errors.push(`${argv[0]}: ${e.message}`); // not installed: the next command may answer
        return undefined;
      }
      if (r.code !== 0) {
        errors.push(`${argv[0]}: ${r.stderr.trim()}`);
        if (INVALID_JOB.test(r.stderr)) unknown = true;
        return undefined;
      }
      const s = parse(r.stdout);
      if (!s && argv[0] !== 'sacct') unknown = true; // sacct may lag behind a job just submitted
      return s;
    };
    const found =
      (await ask(['scontrol', 'show', 'job', '-o', jobId], (o) => parseScontrolJob(jobId, o))) ??
      (await ask(['sacct', '-j', jobId, '--parsable2', '--noheader', `--format=${SACCT_FIELDS}`], (o) =>
        parseSacct(jobId, o),
      )) ??
      (await ask(['squeue', '-h', '-j', jobId, '-o', SQUEUE_FORMAT], (o) => parseSqueue(jobId, o)));
    if (found) return found;
    if (!unknown)
      throw new TrackLaunchError('COMMAND_FAILED', `Slurm could not say what became of job ${jobId}`, {
        hint: 'Is slurmctld reachable from here (`scontrol ping`)? Run track-launch on a login node of the cluster.',
        details: { jobId, errors },
      });
    throw new TrackLaunchError('NOT_FOUND', `Slurm does not know job ${jobId} (any more)`, {
      hint: 'Without accounting (sacct), slurmctld forgets finished jobs after MinJobAge; the run directory keeps the last state seen.',
      details: { jobId, errors },
    });
  }

  /**
   * Every task of the array job `jobId` from one sacct and one scontrol call (mergeArrayStatus
   * decides per task as status() does for one job). Tasks neither knows are absent. COMMAND_FAILED
   * when neither command could answer (slurmctld down and no accounting).
   */
  async arrayStatus(jobId: string): Promise<Map<number, JobStatus>> {
    const errors: string[] = [];
    const ask = async (argv: string[]): Promise<string | undefined> => {
      try {
        const r = await this.run(argv);
        if (r.code === 0) return r.stdout;
        errors.push(`${argv[0]}: ${r.stderr.trim()}`);
        return INVALID_JOB.test(r.stderr) ? '' : undefined; // forgotten: an answer, with no task
      } catch (e) {
        if (!(e instanceof TrackLaunchError)) throw e;
        errors.push(`${argv[0]}: ${e.message}`); // not installed
        return undefined;
      }
    };
    const acct = await ask(['sacct', '-j', jobId, '--parsable2', '--noheader', `--format=${SACCT_FIELDS}`]);
    const ctld = await ask(['scontrol', 'show', 'job', '-o', jobId]);
    if (acct === undefined && ctld === undefined)
      throw new TrackLaunchError('COMMAND_FAILED', `Slurm could not say what became of array job ${jobId}`, {
        hint: 'Is slurmctld reachable from here (`scontrol ping`)? Run track-launch on a login node of the cluster.',
        details: { jobId, errors },
      });
    return mergeArrayStatus(parseSacctArray(jobId, acct ?? ''), parseScontrolArray(jobId, ctld ?? ''));
  }

  /**
   * seff's inputs from accounting (CPU time, allocated CPUs, elapsed time, the steps' largest
   * MaxRSS and its node). Undefined when sacct is not installed, fails (accounting off:
   * "Slurm accounting storage is disabled"), or has no usable line for the job yet.
   */
  async usage(jobId: string): Promise<SacctUsage | undefined> {
    const argv = ['sacct', '-j', jobId, '--parsable2', '--noheader', `--format=${SACCT_USAGE_FIELDS}`];
    let r: ProcessResult;
    try {
      r = await this.run(argv);
    } catch (e) {
      if (e instanceof TrackLaunchError) return undefined; // not installed
      throw e;
    }
    return r.code === 0 ? parseSacctUsage(jobId, r.stdout) : undefined;
  }

  async cancel(jobId: string, signal?: string): Promise<void> {
    // Not --full: the batch shell would die of the signal; the ranks (steps) are what should get it.
    const argv = ['scancel', ...(signal ? [`--signal=${signal}`] : []), jobId];
    const r = await this.run(argv);
    if (r.code !== 0) throw commandFailed(r, `scancel could not cancel job ${jobId}`);
  }
}
