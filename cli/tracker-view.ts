// Where a job is tracked, for `status` and `list`: the lock's holder with what its tracker.json says,
// and whether a job that should be tracked has nobody tracking it.
import { isFinal, runDirsOf, TrackLaunchError } from '../core';
import type { JobRecord } from '../core';
import type { TrackerStatus } from '../tracking-plugin';
import { tracking } from './lazy';
import { formatDuration } from './output';

export interface TrackerView {
  /** The tracker holding the run dir's lock (an array job: the first task's that has one). */
  tracker: TrackerStatus | null;
  /** Why the tracker could not be read (a lock or tracker.json that is a symlink, or too large). */
  problem?: string;
  /** Its runs should be tracked (--track login or job), are not ended yet (as far as the tracking
   *  server set here says), and no live tracker holds the lock. */
  untracked: boolean;
}

const PLACES: Record<string, string> = {
  login: 'follower on the login node',
  job: 'tracker inside the allocation',
  follow: 'ingest --follow',
  manual: 'ingest',
  cron: 'ingest --all',
  unknown: 'ingest',
};

export function trackerView(runDir: string, rec: JobRecord): TrackerView {
  const dirs = runDirsOf(runDir);
  let tracker: TrackerStatus | null = null;
  try {
    tracker = dirs.map((d) => tracking().trackerStatus(d)).find((t) => t !== undefined) ?? null;
  } catch (err) {
    if (!(err instanceof TrackLaunchError)) throw err;
    return { tracker, problem: err.message, untracked: false };
  }
  const uri = tracking().trackingUri(undefined);
  const track = (rec.spec as { track?: unknown }).track;
  const wanted = track === 'login' || track === 'job'; // none: by hand or from cron, holding no lock between
  const live = tracker !== null && tracker.alive !== false;
  // once the job is over, its runs still need ending: known only for the server set here
  const runsOpen = !isFinal(rec) || (uri !== undefined && dirs.some((d) => !tracking().runsFinished(d, uri)));
  return { tracker, untracked: wanted && !live && runsOpen };
}

const ago = (unixS: number) => `${formatDuration(Date.now() / 1000 - unixS)} ago`;

/** `status`'s tracking lines. */
export function formatTracker(v: TrackerView, job: string): string[] {
  const t = v.tracker;
  const lines: string[] = v.problem ? [`  tracking: cannot tell: ${v.problem}`] : [];
  if (t) {
    const where = `${PLACES[t.placement]} pid ${t.pid} on ${t.host}`;
    const state =
      t.alive === false
        ? `gone (its lock's heartbeat ${formatDuration(t.heartbeatAgeS)} old)`
        : t.alive === 'unknown'
          ? `heartbeat ${formatDuration(t.heartbeatAgeS)} ago`
          : 'running';
    const sent = t.lastSentAt !== undefined ? `, last sent ${ago(t.lastSentAt)}` : '';
    const pending = t.pointsPending !== undefined ? `, ${t.pointsPending} points pending` : '';
    const lag = t.lagMs !== undefined ? `, ${formatDuration(t.lagMs / 1000)} behind the logs` : '';
    lines.push(`  tracking: ${where}, ${state}${sent}${pending}${lag}`);
    const u = t.undelivered;
    if (u && u.points + u.params + u.tags + u.files > 0)
      lines.push(`  tracking: ${tracking().describeCounts(u)} not delivered (its output says why)`);
  }
  if (v.untracked)
    lines.push(
      `  warning:  nobody is tracking this job's runs: run \`track-launch ingest --follow ${job}\` (or \`track-launch ingest --all\` from cron)`,
    );
  return lines;
}
