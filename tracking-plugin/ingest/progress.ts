// Progress and summary of an ingest, and the one-line rendering (pure).
import type { JobStateName } from '../../core';
import { describeCounts, type Counts, type Undelivered } from './delivery';

export interface Progress {
  /** The job's state as job.json (or the launcher) last said. */
  state?: JobStateName;
  final: boolean;
  ranksSeen: number;
  worldSize?: number;
  pointsSpooled: number;
  /** Undefined when offline (no tracking URI). */
  pointsSent?: number;
  pending: number;
  /** How far the oldest unsent point is behind now, in ms (0 when all is sent). */
  lagMs: number;
  /** Non-blank log lines that gave no metric (startup messages; a metric line the format misses). */
  skipped: number;
  online: boolean;
  /** The last tracking error (the spool keeps growing; sending resumes when the server answers). */
  lastError?: string;
  /** Sending stopped for good in this ingest: lastError is a refusal that retrying cannot fix. */
  stopped?: boolean;
  /** Points, params, tags and --artifact files skipped for good (names MLflow refuses, refused
   *  entries, files not attached), by kind; set when there are any. */
  notDelivered?: Counts;
}

export interface Summary extends Progress {
  runDir: string;
  trackingUri?: string;
  experimentId?: string;
  parentRunId?: string;
  rankRunIds: Record<string, string>;
  /** The MLflow status the runs were finished with, once the job ended and all was sent. */
  status?: string;
  /** Everything spooled is in MLflow (and, after the job, the runs are finished). */
  complete: boolean;
  warnings: string[];
  /** What never reached MLflow and why (counted over every ingest of this run dir to this server). */
  undelivered?: Undelivered;
  /** Names MLflow would refuse, sent under a valid name in this ingest (the run tag
   *  track_launch.name.<to> keeps the original). */
  renamed?: { from: string; to: string }[];
}

/** "3 points, 1 param not delivered: 2 points: <reason>; ..." (the first few reasons). */
export function formatUndelivered(u: Undelivered, max = 5): string {
  const reasons = u.reasons.slice(0, max).map((r) => `${describeCounts(r)}: ${r.reason}`);
  if (u.reasons.length > max) reasons.push(`and ${u.reasons.length - max} more reasons`);
  return `${describeCounts(u)} not delivered: ${reasons.join('; ')}`;
}

const secs = (ms: number) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`);

/** `state: false` and `ranks: false` leave out the job's state and the ranks seen, for a line that
 *  says them already (submit's, from the watcher, which learns them first). */
export function formatProgress(p: Progress, opts: { state?: boolean; ranks?: boolean } = {}): string {
  const parts = [
    ...(opts.state === false ? [] : [`job ${p.state ?? 'UNKNOWN'}`]),
    ...(opts.ranks === false ? [] : [`ranks ${p.ranksSeen}${p.worldSize ? `/${p.worldSize}` : ''}`]),
    p.pointsSent === undefined
      ? `${p.pointsSpooled} points spooled (offline)`
      : `${p.pointsSent}/${p.pointsSpooled} points sent`,
  ];
  if (p.pointsSent !== undefined) parts.push(`lag ${secs(p.lagMs)}`);
  if (p.skipped) parts.push(`${p.skipped} lines without a metric`);
  if (p.notDelivered) parts.push(`${describeCounts(p.notDelivered)} not delivered`);
  if (p.lastError)
    parts.push(`${p.stopped ? 'stopped' : 'retrying'}: ${p.lastError.slice(0, p.stopped ? 400 : 120)}`);
  return parts.join(' | ');
}
