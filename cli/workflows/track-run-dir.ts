// `ingest` and `sync`'s use cases: the run dir's metrics into the spool and MLflow (tracking
// plugin), the job's state from its executor (launcher), then the report once the job has ended.
import { isTerminal, readJobRecordIfAny, resolveRunDir, runDirsOf, TrackLaunchError } from '../../core';
import { opsForRunDir, watchJob } from '../../launcher';
import type { IngestOptions, Summary } from '../../tracking-plugin';
import { onCtrlC } from '../interrupt';
import { tracking } from '../lazy';
import { ProgressLine } from '../output';
import { printSummary } from '../tracking-output';
import { reportAfterJob, type PublishedReport } from './publish-report';

export interface TrackRequest {
  /** Job id or run directory. */
  job: string;
  ingest: IngestOptions;
  /** Only for the report upload: the --tracking-uri given. */
  uri?: string;
  json: boolean;
}

export interface Tracked {
  runDir: string;
  summary: Summary;
  report?: PublishedReport;
}

const warn = (m: string) => process.stderr.write(`track-launch: warning: ${m}\n`);

/** After the fact, job.json may still say RUNNING (nobody followed the job): ask the scheduler once,
 *  so the runs end with the real state. Best effort: the logs are ingested either way. */
async function refreshUnlessEnded(runDir: string): Promise<void> {
  if (!readJobRecordIfAny(runDir)) return; // a hand-made run dir: no job to ask about
  try {
    await opsForRunDir(runDir).refresh(runDir); // a no-op once job.json holds a final state
  } catch (err) {
    warn(`cannot ask the scheduler for the job state (${(err as Error).message}); using job.json as it is`);
  }
}

/** Ingest until the job ends: the watcher asks the scheduler (job.json alone may not change when
 *  nobody follows the job) and tells the live ingest; Ctrl-C stops both, the spool stays consistent. */
async function followIngest(
  runDir: string,
  req: TrackRequest,
  pollMs: number,
  quiet: boolean,
): Promise<Summary> {
  const progress = new ProgressLine(process.stderr, quiet);
  const { formatProgress, startLiveIngest } = tracking();
  const live = startLiveIngest(runDir, {
    ...req.ingest,
    pollMs,
    onProgress: (p) => progress.update(formatProgress(p)),
  });
  const ctrlC = onCtrlC(() => void live.stop());
  const stopWatching = new AbortController();
  if (readJobRecordIfAny(runDir)) {
    watchJob(runDir, opsForRunDir(runDir).refresh, {
      pollMs: Math.max(1000, pollMs),
      signal: stopWatching.signal,
      onWarning: warn,
    }).then(
      (rec) => rec.state && isTerminal(rec.state.name) && live.jobEnded(rec.state.name),
      (err: Error) =>
        warn(`cannot ask the scheduler for the job state (${err.message}); waiting for job.json`),
    );
  }
  try {
    return await live.done;
  } finally {
    stopWatching.abort();
    ctrlC.dispose();
    progress.done();
  }
}

type IngestRequest = TrackRequest & { follow: boolean; pollMs: number; report: boolean };

/** A job, or every task of an array job (`123`, or its run dir; `123_2` is one task): each task's
 *  run directory is ingested as a job of its own, into its own MLflow parent run. */
export async function ingestJob(req: IngestRequest): Promise<Tracked[]> {
  const top = resolveRunDir(req.job);
  const dirs = runDirsOf(top);
  if (dirs.length > 1 && !req.follow) await refreshUnlessEnded(top); // one Slurm call for all tasks
  if (!req.follow || dirs.length === 1) {
    const out: Tracked[] = [];
    for (const dir of dirs) out.push(await ingestOne(dir, req, false));
    return out;
  }
  // Following an array: its tasks run side by side, so they are ingested side by side.
  return Promise.all(dirs.map((dir) => ingestOne(dir, req, true)));
}

async function ingestOne(runDir: string, req: IngestRequest, quiet: boolean): Promise<Tracked> {
  if (!req.follow) await refreshUnlessEnded(runDir);
  const summary = req.follow
    ? await followIngest(runDir, req, req.pollMs, quiet || req.json)
    : await tracking().ingestRunDir(runDir, req.ingest);
  if (!req.json) printSummary(summary);
  const report =
    summary.final && req.report ? await reportAfterJob(runDir, { uri: req.uri, json: req.json }) : undefined;
  return { runDir, summary, ...(report ? { report } : {}) };
}

/** Every task of an array job, or the one run directory. */
export async function syncJob(req: TrackRequest): Promise<Tracked[]> {
  if (!tracking().trackingUri(req.uri)) {
    throw new TrackLaunchError(
      'USAGE',
      'sync needs a tracking server: set MLFLOW_TRACKING_URI or pass --tracking-uri',
      {
        hint: 'e.g. MLFLOW_TRACKING_URI=http://mlflow.example:5000 track-launch sync <run-dir>',
      },
    );
  }
  const out: Tracked[] = [];
  for (const dir of runDirsOf(resolveRunDir(req.job))) out.push(await syncOne(dir, req));
  return out;
}

async function syncOne(runDir: string, req: TrackRequest): Promise<Tracked> {
  const summary = await tracking().syncRunDir(runDir, req.ingest);
  if (!req.json) printSummary(summary);
  // Uploads the report of a finished job too (rendered again: the logs may have grown since).
  const report =
    summary.final && summary.complete
      ? await reportAfterJob(runDir, { uri: req.uri, json: req.json })
      : undefined;
  return { runDir, summary, ...(report ? { report } : {}) };
}
