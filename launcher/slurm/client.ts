// Submit, watch and cancel Slurm jobs through the Slurm commands (sbatch, sacct, scontrol,
// squeue, scancel). The process runner is injected so unit tests can stub it.
import { TrackLaunchError } from '../errors';
import {
  JobStatus,
  parseSacct,
  parseSbatchParsable,
  parseScontrolJob,
  parseSqueue,
  SACCT_FIELDS,
  SQUEUE_FORMAT,
} from './job-status';
import { commandFailed, ProcessRunner, runProcess } from './run-process';

export class SlurmClient {
  constructor(private readonly run: ProcessRunner = runProcess) {}

  async submit(argv: string[], cwd: string): Promise<{ jobId: string; cluster?: string }> {
    const r = await this.run(argv, { cwd });
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

  /** sacct when accounting is on; scontrol while the job is known to slurmctld; squeue last. */
  async status(jobId: string): Promise<JobStatus> {
    const errors: string[] = [];
    const sacct = await this.run([
      'sacct',
      '-j',
      jobId,
      '--parsable2',
      '--noheader',
      `--format=${SACCT_FIELDS}`,
    ]);
    if (sacct.code === 0) {
      const s = parseSacct(jobId, sacct.stdout);
      if (s) return s;
    } else errors.push(`sacct: ${sacct.stderr.trim()}`);
    const sc = await this.run(['scontrol', 'show', 'job', '-o', jobId]);
    if (sc.code === 0) {
      const s = parseScontrolJob(jobId, sc.stdout);
      if (s) return s;
    } else errors.push(`scontrol: ${sc.stderr.trim()}`);
    const sq = await this.run(['squeue', '-h', '-j', jobId, '-o', SQUEUE_FORMAT]);
    if (sq.code === 0) {
      const s = parseSqueue(jobId, sq.stdout);
      if (s) return s;
    } else errors.push(`squeue: ${sq.stderr.trim()}`);
    throw new TrackLaunchError('NOT_FOUND', `Slurm does not know job ${jobId} (any more)`, {
      hint: 'Without accounting (sacct), slurmctld forgets finished jobs after MinJobAge; the run directory keeps the last state seen.',
      details: { jobId, errors },
    });
  }

  async cancel(jobId: string, signal?: string): Promise<void> {
    // Not --full: the batch shell would die of the signal; the ranks (steps) are what should get it.
    const argv = ['scancel', ...(signal ? [`--signal=${signal}`] : []), jobId];
    const r = await this.run(argv);
    if (r.code !== 0) throw commandFailed(r, `scancel could not cancel job ${jobId}`);
  }
}
