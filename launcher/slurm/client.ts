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
import { commandFailed, ProcessRunner, runProcess } from './run-process';

/** What scontrol and squeue print for a job slurmctld does not know (never had, or purged). */
const INVALID_JOB = /Invalid job id/i;

/** What scancel prints for a job that has ended (or is ending). */
const ALREADY_ENDED = /already completing or completed|Job has already finished/i;

/** sacct's lines for the job, with these fields. */
const sacct = (id: string, f: string) => ['sacct', '-j', id, '--parsable2', '--noheader', `--format=${f}`];

const unreachable = (what: string, jobId: string, errors: string[]) =>
  new TrackLaunchError('COMMAND_FAILED', `Slurm could not say what became of ${what}`, {
    hint: 'Is slurmctld reachable from here (`scontrol ping`)? Run track-launch on a login node of the cluster.',
    details: { jobId, errors },
  });

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

  /** A command's stdout; '' when it says it does not know the job, undefined when it is not installed
   *  or fails otherwise (why goes to `errors`). */
  private async ask(argv: string[], errors: string[]): Promise<string | undefined> {
    try {
      const r = await this.run(argv);
      if (r.code === 0) return r.stdout;
      errors.push(`${argv[0]}: ${r.stderr.trim()}`);
      return INVALID_JOB.test(r.stderr) ? '' : undefined;
    } catch (e) {
      if (!(e instanceof TrackLaunchError)) throw e;
      errors.push(`${argv[0]}: ${e.message}`); // not installed: another command may answer
      return undefined;
    }
  }

  /** scontrol while slurmctld knows the job (it decides requeues; accounting lags behind), then sacct,
   *  then squeue. NOT_FOUND when one of them does not know the job; COMMAND_FAILED when none answers. */
  async status(jobId: string): Promise<JobStatus> {
    const errors: string[] = [];
    let unknown = false; // a command answered, and it does not know the job
    const ask = async (argv: string[], parse: (jobId: string, out: string) => JobStatus | undefined) => {
      const out = await this.ask(argv, errors);
      const s = out === undefined ? undefined : parse(jobId, out);
      if (!s && out !== undefined && argv[0] !== 'sacct') unknown = true; // sacct may lag behind a new job
      return s;
    };
    const found =
      (await ask(['scontrol', 'show', 'job', '-o', jobId], parseScontrolJob)) ??
      (await ask(sacct(jobId, SACCT_FIELDS), parseSacct)) ??
      (await ask(['squeue', '-h', '-j', jobId, '-o', SQUEUE_FORMAT], parseSqueue));
    if (found) return found;
    if (!unknown) throw unreachable(`job ${jobId}`, jobId, errors);
    throw new TrackLaunchError('NOT_FOUND', `Slurm does not know job ${jobId} (any more)`, {
      hint: 'Without accounting (sacct), slurmctld forgets finished jobs after MinJobAge; the run directory keeps the last state seen.',
      details: { jobId, errors },
    });
  }

  /** Every task of the array job from one sacct and one scontrol call, merged as status() decides;
   *  tasks neither knows are absent. COMMAND_FAILED when neither command answers. */
  async arrayStatus(jobId: string): Promise<Map<number, JobStatus>> {
    const errors: string[] = [];
    const acct = await this.ask(sacct(jobId, SACCT_FIELDS), errors);
    const ctld = await this.ask(['scontrol', 'show', 'job', '-o', jobId], errors);
    if (acct === undefined && ctld === undefined) throw unreachable(`array job ${jobId}`, jobId, errors);
    return mergeArrayStatus(parseSacctArray(jobId, acct ?? ''), parseScontrolArray(jobId, ctld ?? ''));
  }

  /** seff's inputs from accounting; undefined when sacct is missing, fails or has no line yet. */
  async usage(jobId: string): Promise<SacctUsage | undefined> {
    const out = await this.ask(sacct(jobId, SACCT_USAGE_FIELDS), []);
    return out ? parseSacctUsage(jobId, out) : undefined;
  }

  /** 'ended' when scancel says the job has already ended (it exits 0 then). */
  async cancel(jobId: string, signal?: string): Promise<'sent' | 'ended'> {
    // Not --full: the batch shell would die of the signal; the ranks (steps) are what should get it.
    const argv = ['scancel', ...(signal ? [`--signal=${signal}`] : []), jobId];
    const r = await this.run(argv);
    if (ALREADY_ENDED.test(r.stderr)) return 'ended';
    if (r.code !== 0) throw commandFailed(r, `scancel could not cancel job ${jobId}`);
    return 'sent';
  }
}
