// How long the local executor lets a job's processes end after SIGTERM before SIGKILL (a failed
// rank, a cancel, a supervisor that died): TRACK_LAUNCH_KILL_GRACE seconds, default 10.
import { TrackLaunchError } from '../../core';

export const KILL_GRACE_VAR = 'TRACK_LAUNCH_KILL_GRACE';
export const DEFAULT_KILL_GRACE_S = 10;

/** The grace period in ms; a value that is not a number of seconds from 0 to 3600 is refused. */
export function killGraceMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[KILL_GRACE_VAR];
  if (raw === undefined || raw.trim() === '') return DEFAULT_KILL_GRACE_S * 1000;
  const s = Number(raw);
  if (!Number.isFinite(s) || s < 0 || s > 3600)
    throw new TrackLaunchError('INVALID_SPEC', `${KILL_GRACE_VAR}=${JSON.stringify(raw)} is not valid`, {
      hint: `Give the seconds between SIGTERM and SIGKILL for local jobs, 0 to 3600 (default ${DEFAULT_KILL_GRACE_S}).`,
    });
  return Math.round(s * 1000);
}
