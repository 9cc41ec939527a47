// `track-launch ingest --all` (for cron), apart from the one-job use case it builds on.
import { readJobIndex, readJobRecordIfAny, runDirsOf, TrackLaunchError } from '../../core';
import { tracking } from '../lazy';
import { trackingError } from '../tracking-output';
import { conclude, refreshUnlessEnded, type Ingested, type IngestRequest } from './follow-and-track';

const say = (line: string) => process.stderr.write(line);

/** `ingest --all`, for cron: every job of the user's index whose runs on the server are not ended yet,
 *  ingested once, each run directory under its lock (one that a live tracker holds is left to it).
 *  A job that fails does not stop the others; the command fails once all were tried. */
export async function ingestAll(req: Omit<IngestRequest, 'job' | 'follow'>): Promise<Ingested[]> {
  const uri = tracking().trackingUri(req.uri);
  if (!uri)
    throw new TrackLaunchError('USAGE', 'ingest --all needs a tracking server: set MLFLOW_TRACKING_URI', {
      hint: 'e.g. in crontab: */5 * * * * MLFLOW_TRACKING_URI=http://mlflow.example:5000 track-launch ingest --all',
    });
  const newest = new Map(readJobIndex().entries.map((e) => [e.run_dir, e]));
  const out: Ingested[] = [];
  const failed: string[] = [];
  const ingest = { ...req.ingest, placement: req.ingest.placement ?? 'cron' };
  for (const e of newest.values()) {
    const top = e.run_dir;
    let dirs: string[];
    try {
      if (!readJobRecordIfAny(top)) continue; // removed: nothing to send
      dirs = runDirsOf(top).filter((d) => !tracking().runsFinished(d, uri));
    } catch (err) {
      failed.push(`job ${e.job_id}: ${(err as Error).message}`);
      continue;
    }
    if (dirs.length === 0) continue;
    await refreshUnlessEnded(top);
    for (const dir of dirs) {
      if (!req.json) say(`job ${e.job_id} (${dir}):\n`);
      try {
        const done = await conclude(dir, tracking().ingestRunDir(dir, ingest), req);
        out.push(done);
        const incomplete = trackingError(done.summary);
        if (incomplete) failed.push(`${what(e.job_id, dir, top)}: ${incomplete.message}`);
      } catch (err) {
        if (isBusy(err)) say(`  tracked by another ingester: ${(err as Error).message}\n`);
        else failed.push(`${what(e.job_id, dir, top)}: ${(err as Error).message}`);
      }
    }
  }
  if (failed.length)
    throw new TrackLaunchError(
      'TRACKING',
      `${failed.length} run director${failed.length === 1 ? 'y' : 'ies'} not brought up to date:\n  ${failed.join('\n  ')}`,
      {
        hint: 'each is kept in its run dir: the next `track-launch ingest --all` tries again',
      },
    );
  return out;
}

/** "job 12" for a job's run dir, "job 12 (task-3)" for an array task's. */
const what = (jobId: string, dir: string, top: string): string =>
  dir === top ? `job ${jobId}` : `job ${jobId} (${dir.slice(top.length + 1)})`;

/** Another ingester holds the run dir's lock: it is tracked, not failed. */
const isBusy = (err: unknown): boolean =>
  err instanceof TrackLaunchError &&
  err.code === 'TRACKING' &&
  err.message.startsWith('another ingest holds');
