// Following and tracking a job, for `submit --follow`, `ingest [--follow]` and `sync`: each run directory of
// the job (an array's: each task's) is ingested, live while the job runs, then its summary printed.
// Its report is made once its job has ended and its ingest has run to its end (a failed ingest makes none;
// `ingest --no-report` skips it); attaching it to the parent MLflow run is best effort.
import { isFinal, readJobRecordIfAny, resolveRunDir, runDirsOf, TrackLaunchError } from '../../core';
import type { JobRecord } from '../../core';
import { executorForRunDir, ranksDone, runJob, shellQuote, watchJob, worldSize } from '../../launcher';
import type { RunJobEvent, RunJobResult, SubmitPlan } from '../../launcher';
import type { IngestOptions, LiveIngest, LiveOptions, Summary } from '../../tracking-plugin';
import { onCtrlC } from '../interrupt';
import { tracking } from '../lazy';
import { formatDuration, ProgressLine } from '../output';
import { printSummary, tasksError, trackingError } from '../tracking-output';
import { report, type ReportOptions } from './report-step';
import { startTracker, trackingLine, type Follower } from './follower';

type JobState = NonNullable<JobRecord['state']>;

/** One run directory: what its ingest reached and its report. */
export interface Tracked {
  runDir: string;
  jobId?: string;
  state?: JobState;
  summary?: Summary;
  /** The report's files, once made. */
  reports?: string[];
  /** An array job, followed by submit: each task. */
  tasks?: Tracked[];
  /** The detached follower submit started (--track login). */
  follower?: Follower;
  /** Live tracking failed before it could sum up (no summary): why. */
  trackingStopped?: string;
}

export type Ingested = Tracked & { summary: Summary };

type Live = { dir: string; live: LiveIngest };

const say = (line: string) => process.stderr.write(line);
const warn = (m: string) => say(`track-launch: warning: ${m}\n`);

const startLive = (runDir: string, opts: LiveOptions): Live[] =>
  runDirsOf(runDir).map((dir) => ({ dir, live: tracking().startLiveIngest(dir, opts) }));

/** The run directory's ingest ran to its end: its summary, then its report. */
export async function conclude(
  runDir: string,
  ingest: Promise<Summary>,
  opts: ReportOptions,
): Promise<Ingested> {
  const summary = await ingest;
  if (!opts.json) printSummary(summary);
  const files = summary.final && opts.report ? await report(runDir, opts, summary) : undefined;
  return { runDir, summary, ...(files ? { reports: files } : {}) };
}

/** --mlflow-env: the job's runs, made before sbatch so that the ranks get their ids; ended KILLED
 *  when sbatch refuses the job. */
async function makeJobRuns(runDir: string): Promise<() => Promise<void>> {
  const runs = await tracking().prepareJobRuns(runDir);
  return () => tracking().endJobRuns(runs);
}

function sayRunEvent(e: RunJobEvent): void {
  if (e.kind === 'cancel-deferred')
    say('\ntrack-launch: Ctrl-C: the job is cancelled as soon as it is submitted\n');
  else if (e.kind === 'cancelling')
    say(`\ntrack-launch: cancelling job ${e.jobId} (Ctrl-C again to stop waiting)\n`);
  else say(`track-launch: ${e.error.message}\n`);
}

/** `submit`: run the job (launcher); with `follow`, ingest it live until its end, then conclude
 *  each run directory. A failed ingest is a warning there: the job's outcome is the command's. */
export async function submitAndTrack(
  plan: SubmitPlan,
  opts: { follow: boolean; pollMs: number; json: boolean },
): Promise<Tracked & { jobId: string }> {
  const progress = new ProgressLine(opts.json);
  // Ctrl-C while following cancels the job, then waits for its final state. It is caught from
  // submission on: one that comes while submitting cancels the job once it has an id.
  const cancel = new AbortController();
  const ctrlC = opts.follow ? onCtrlC(() => cancel.abort()) : undefined;
  let lives: Live[] = [];
  let follower: Follower | undefined;
  const ranks = worldSize(plan.spec) * (plan.spec.array?.tasks.length ?? 1);
  let run: RunJobResult;
  try {
    run = await runJob(plan, {
      follow: opts.follow,
      pollMs: opts.pollMs,
      ...(ctrlC ? { cancel: cancel.signal } : {}),
      ...(plan.spec.mlflowEnv ? { beforeSubmit: makeJobRuns } : {}),
      onEvent: sayRunEvent,
      onSubmitted: ({ jobId, runDir }) => {
        if (opts.follow) lives = startLive(runDir, { pollMs: opts.pollMs });
        else follower = startTracker(runDir, plan.spec.track, opts.pollMs / 1000);
        if (!opts.json) say(`Submitted job ${jobId} (${plan.layout})\n  run dir: ${runDir}\n`);
        if (!opts.json && !opts.follow)
          say(`  tracking: ${trackingLine(runDir, plan.spec.track, follower)}\n`);
      },
      onProgress: (p) => {
        const t = lives.length === 1 ? lives[0].live.progress() : undefined;
        progress.update(
          `job ${p.record.job_id}: ${p.record.state?.name ?? 'UNKNOWN'}  ranks started ${p.ranksStarted}/${ranks}`,
          `  ${formatDuration(p.elapsedS)}  ${t?.pointsSpooled ? `| ${tracking().formatProgress(t, { state: false, ranks: false })}` : ''}`,
        );
      },
    });
  } catch (e) {
    await Promise.all(lives.map(({ live }) => live.stop().catch(() => undefined)));
    throw e; // the watch failed: its error is the one to show
  } finally {
    ctrlC?.dispose();
  }
  const { jobId, runDir, record } = run;
  if (!record?.state || lives.length === 0) return { jobId, runDir, ...(follower ? { follower } : {}) };
  progress.done();
  const track = { json: opts.json, report: true };
  const tasks: Tracked[] = [];
  for (const { dir, live } of lives) {
    const task = record.array ? readJobRecordIfAny(dir) : record;
    const state = task?.state ?? record.state;
    if (record.array && !opts.json) say(`task ${task?.job_id ?? dir}: ${state.name}\n`);
    live.jobEnded(state.name);
    const t = await conclude(dir, live.done, track).catch((e: Error) => {
      warn(
        `live tracking stopped: ${e.message}\n  run \`track-launch ingest ${shellQuote(dir)}\` to finish it`,
      );
      return { runDir: dir, trackingStopped: e.message };
    });
    tasks.push({ ...t, jobId: task?.job_id ?? jobId, state });
  }
  return record.array ? { jobId, runDir, state: record.state, tasks } : { ...tasks[0], jobId };
}

/** The followed job's error: a job that did not complete, else tracking that lost something for good. */
export function jobFailed(job: Tracked): TrackLaunchError | undefined {
  const { jobId, runDir, state: st } = job;
  if (!st) return undefined;
  // An array: the first task that failed names what to look at; else every task's tracking loss.
  const failedTask = job.tasks?.find((t) => t.state && t.state.name !== 'COMPLETED');
  if (failedTask) return jobFailed(failedTask);
  if (job.tasks) return tasksError(job.tasks.map((t) => ({ runDir: t.runDir, error: jobFailed(t) })));
  if (st.name === 'COMPLETED') {
    if (job.summary) return trackingError(job.summary);
    if (job.trackingStopped === undefined) return undefined;
    return new TrackLaunchError(
      'TRACKING',
      `job ${jobId} completed, but its live tracking stopped: ${job.trackingStopped}`,
      {
        hint: `run \`track-launch ingest ${shellQuote(runDir)}\` to bring MLflow up to date`,
        details: { jobId, runDir },
      },
    );
  }
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

export type IngestRequest = ReportOptions & {
  /** Job id or run directory (`123_2`: one task of an array). */
  job: string;
  ingest: IngestOptions;
  follow: boolean;
  pollMs: number;
  /** sync: a tracking server is required, and job.json is taken as it is (no scheduler asked). */
  sync?: boolean;
};

/** `ingest` and `sync`: each run directory of the job, ingested and concluded. */
export async function ingestJob(req: IngestRequest): Promise<Ingested[]> {
  if (req.sync && !tracking().trackingUri(req.uri)) {
    throw new TrackLaunchError(
      'USAGE',
      'sync needs a tracking server: set MLFLOW_TRACKING_URI or pass --tracking-uri',
      { hint: 'e.g. MLFLOW_TRACKING_URI=http://mlflow.example:5000 track-launch sync <run-dir>' },
    );
  }
  const top = resolveRunDir(req.job);
  if (req.follow) return followIngest(top, req);
  if (!req.sync) await refreshUnlessEnded(top);
  const out: Ingested[] = [];
  for (const dir of runDirsOf(top))
    out.push(await conclude(dir, tracking().ingestRunDir(dir, req.ingest), req));
  return out;
}

/** After the fact, job.json may still say RUNNING (nobody followed the job): ask the scheduler once
 *  (for an array, about all its tasks), so that the runs end with the real state. Best effort. */
export async function refreshUnlessEnded(runDir: string): Promise<void> {
  if (!readJobRecordIfAny(runDir)) return; // a hand-made run dir: no job to ask about
  try {
    await executorForRunDir(runDir).refresh(runDir); // a no-op once job.json holds a final state
  } catch (err) {
    warn(`cannot ask the scheduler for the job state (${(err as Error).message}); using job.json as it is`);
  }
}

/** Ingest live until the job ends, which the watcher learns from the scheduler and tells each live ingest;
 *  Ctrl-C stops them, the spool stays consistent. */
async function followIngest(top: string, req: IngestRequest): Promise<Ingested[]> {
  const dirs = runDirsOf(top);
  // a tracker nobody watches writes no progress lines (its log would grow by a line a poll):
  // tracking/tracker.json holds its progress for `status`
  const detached = req.ingest.placement === 'login' || req.ingest.placement === 'job';
  const progress = new ProgressLine(req.json || dirs.length > 1 || detached);
  const lives = startLive(top, {
    ...req.ingest,
    pollMs: req.pollMs,
    onProgress: (p) => progress.update(tracking().formatProgress(p)),
  });
  // Ctrl-C, or SIGTERM (kill, Slurm's time limit or scancel): stop with the spool and cursors saved
  const stopAll = () => lives.forEach(({ live }) => void live.stop());
  const ctrlC = onCtrlC(stopAll);
  process.once('SIGTERM', stopAll);
  const stopWatching = new AbortController();
  if (req.ingest.placement === 'job')
    // Inside the allocation Slurm says RUNNING until the batch script exits, and the script waits for
    // this tracker: its word in the run dir (logs/ranks.done, the ranks' exit status) is the job's end.
    ranksDone(top, { pollMs: req.pollMs, signal: stopWatching.signal }).then(
      (state) => {
        if (state) for (const { live } of lives) live.jobEnded(state);
      },
      (err: Error) => {
        warn(`${err.message}; stopping: the next tracker ends the runs`);
        for (const { live } of lives) void live.stop();
      },
    );
  else if (readJobRecordIfAny(top)) {
    // a tracker nobody watches asks Slurm less often: it has only to end the runs within minutes
    watchJob(top, executorForRunDir(top).refresh, {
      pollMs: Math.max(detached ? 10_000 : 1000, req.pollMs),
      signal: stopWatching.signal,
      onWarning: warn,
    }).then(
      (job) => {
        if (!isFinal(job)) return;
        // an array task's state is in its own job.json
        for (const { dir, live } of lives) live.jobEnded((readJobRecordIfAny(dir)?.state ?? job.state)!.name);
      },
      (err: Error) =>
        warn(`cannot ask the scheduler for the job state (${err.message}); waiting for job.json`),
    );
  }
  const endLine = () => progress.done();
  try {
    return await Promise.all(lives.map(({ dir, live }) => conclude(dir, live.done.finally(endLine), req)));
  } finally {
    stopWatching.abort();
    ctrlC.dispose();
    process.off('SIGTERM', stopAll);
  }
}
