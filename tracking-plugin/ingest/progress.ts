// Progress and summary of an ingest, and the one-line rendering (pure).
import type { JobStateName } from '../../core';

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
  skipped: number;
  online: boolean;
  /** The last tracking error (the spool keeps growing; sending resumes when the server answers). */
  lastError?: string;
  /** Sending stopped for good in this ingest: lastError is a refusal that retrying cannot fix. */
  stopped?: boolean;
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
}

const secs = (ms: number) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`);

export function formatProgress(p: Progress): string {
  const parts = [
    `job ${p.state ?? 'UNKNOWN'}`,
    `ranks ${p.ranksSeen}${p.worldSize ? `/${p.worldSize}` : ''}`,
    p.pointsSent === undefined
      ? `${p.pointsSpooled} points spooled (offline)`
      : `${p.pointsSent}/${p.pointsSpooled} points sent`,
  ];
  if (p.pointsSent !== undefined) parts.push(`lag ${secs(p.lagMs)}`);
  if (p.skipped) parts.push(`${p.skipped} lines skipped`);
  if (p.lastError)
    parts.push(`${p.stopped ? 'stopped' : 'retrying'}: ${p.lastError.slice(0, p.stopped ? 400 : 120)}`);
  return parts.join(' | ');
}
