// `submit`'s use case, composed of the parts: run the job (launcher), ingest it live (tracking
// plugin), then render and publish the report (reports + tracking plugin). Only the CLI combines
// parts; each part's own work is a function of that part.
import { JobRecord, readJobRecordIfAny, runDirsOf, TrackLaunchError } from '../../core';
import { runJob, worldSize, type RunJobEvent, type RunJobResult, type SubmitPlan } from '../../launcher';
import type { LiveIngest, Progress, Summary } from '../../tracking-plugin';
import { ctrlCAborts } from '../interrupt';
import { tracking } from '../lazy';
import { formatDuration, ProgressLine } from '../output';
import { notDelivered, printSummary } from '../tracking-output';
import { reportAfterJob } from './publish-report';

export interface SubmitAndTrackOptions {
  follow: boolean;
  pollMs: number;
  /** Machine-readable output: no progress or summary lines on stderr. */
  json: boolean;
}

export interface TrackedJob {
  jobId: string;
  runDir: string;
  /** Set when followed: the final state, what tracking did, the report files. */
  state?: NonNullable<JobRecord['state']>;
  tracking?: Summary;
  reports?: string[];
  /** An array job, followed: each task as a job of its own (its run dir, state, tracking, reports). */
  tasks?: TrackedJob[];
}

const say = (line: string) => process.stderr.write(line);

function sayRunEvent(e: RunJobEvent): void {
  if (e.kind === 'cancel-deferred')
    say('\ntrack-launch: Ctrl-C: the job is cancelled as soon as it is submitted\n');
  else if (e.kind === 'cancelling')
    say(`\ntrack-launch: cancelling job ${e.jobId} (Ctrl-C again to stop waiting)\n`);
  else say(`track-launch: ${e.error.message}\n`);
}

const trackingLine = (p: Progress): string => (p.pointsSpooled ? `| ${tracking().formatProgress(p)}` : '');

export async function submitAndTrack(plan: SubmitPlan, opts: SubmitAndTrackOptions): Promise<TrackedJob> {
  const progress = new ProgressLine(process.stderr, opts.json);
  // Ctrl-C while following cancels the job (Slurm or local), then waits for its final state. It is
  // caught from submission on: one that comes while submitting cancels the job once it has an id.
  const ctrlC = opts.follow ? ctrlCAborts() : undefined;
  // One live ingest per run directory: the job's, or each array task's (its own MLflow parent run).
  let lives: Array<{ dir: string; live: LiveIngest }> = [];
  let run: RunJobResult;
  try {
    run = await runJob(plan, {
      follow: opts.follow,
      pollMs: opts.pollMs,
      ...(ctrlC ? { cancel: ctrlC.signal } : {}),
      onEvent: sayRunEvent,
      onSubmitted: ({ jobId, runDir }) => {
        if (!opts.json) say(`Submitted job ${jobId} (${plan.layout})\n  run dir: ${runDir}\n`);
        // Ingest while the job runs: always into the run dir's spool, and to MLflow when a URI is set.
        if (opts.follow)
          lives = runDirsOf(runDir).map((dir) => ({
            dir,
            live: tracking().startLiveIngest(dir, { pollMs: 2000 }),
          }));
      },
      onProgress: (p) =>
        progress.update(
          `job ${p.record.job_id}: ${p.record.state?.name ?? 'UNKNOWN'}  ranks started ${p.ranksStarted}/${worldSize(plan.spec) * (plan.spec.array?.tasks.length ?? 1)}`,
          `  ${formatDuration(p.elapsedS)}  ${lives.length === 1 ? trackingLine(lives[0].live.progress()) : ''}`,
        ),
    });
  } catch (e) {
    // the watch failed: its error is the one to show
    await Promise.all(lives.map(({ live }) => live.stop().catch(() => undefined)));
    throw e;
  } finally {
    ctrlC?.dispose();
  }
  const { jobId, runDir, record } = run;
  if (!record?.state || lives.length === 0) return { jobId, runDir };
  progress.done();
  const state = record.state;
  if (!record.array) return { jobId, ...(await finishTracking(runDir, state, lives[0].live, opts)) };
  const tasks: TrackedJob[] = [];
  for (const { dir, live } of lives) {
    const task = readJobRecordIfAny(dir);
    const taskState = task?.state ?? state;
    if (!opts.json) say(`task ${task?.job_id ?? dir}: ${taskState.name}\n`);
    tasks.push({ jobId: task?.job_id ?? jobId, ...(await finishTracking(dir, taskState, live, opts)) });
  }
  return { jobId, runDir, state, tasks };
}

/** The job (or array task) ended: finish its live ingest with its state, then its report. */
async function finishTracking(
  runDir: string,
  state: NonNullable<JobRecord['state']>,
  live: LiveIngest,
  opts: SubmitAndTrackOptions,
): Promise<Omit<TrackedJob, 'jobId'>> {
  live.jobEnded(state.name);
  // Tracking trouble never changes the job's outcome: everything stays spooled for `sync`.
  const summary = await live.done.catch((e: Error) => {
    say(
      `track-launch: warning: live tracking stopped: ${e.message}\n  run \`track-launch ingest ${runDir}\` to finish it\n`,
    );
    return undefined;
  });
  if (summary && !opts.json) printSummary(summary);
  const report = await reportAfterJob(runDir, { json: opts.json });
  return { runDir, state, ...(summary ? { tracking: summary } : {}), reports: report?.files ?? [] };
}

/** The followed job's error: a job that did not complete (exit 5, naming the rank that failed
 *  first), else tracking that skipped points, params, tags or files for good (exit 9). */
export function jobFailed(job: TrackedJob): TrackLaunchError | undefined {
  const { jobId, runDir, state: st } = job;
  if (!st) return undefined;
  // An array: the first task that failed names what to look at; else any task's tracking loss.
  const failedTask = job.tasks?.find((t) => t.state && t.state.name !== 'COMPLETED');
  if (failedTask) return jobFailed(failedTask);
  if (job.tasks) return job.tasks.map(jobFailed).find((e) => e !== undefined);
  if (st.name === 'COMPLETED') return job.tracking ? notDelivered(job.tracking) : undefined;
  const who =
    st.failed_rank !== undefined ? `; rank ${st.failed_rank} on ${st.failed_host} failed first` : '';
  return new TrackLaunchError(
    'JOB_FAILED',
    `job ${jobId} ended ${st.name}${st.exit_code !== undefined ? ` (exit ${st.exit_code}:${st.signal ?? 0})` : ''}${who}`,
    {
      hint: `Logs: track-launch logs ${jobId}${st.failed_rank !== undefined ? ` --rank ${st.failed_rank}` : ''}  (files in ${runDir}/logs)`,
      details: { jobId, runDir, state: st },
    },
  );
}
