// What `cancel` says of a job that has ended, under every executor.
import { JobRecord, TrackLaunchError } from '../../core';

/** A job that has ended cannot be cancelled or signalled: NOT_FOUND, with the state it ended in. */
export const notRunning = (rec: JobRecord): TrackLaunchError =>
  new TrackLaunchError(
    'NOT_FOUND',
    `job ${rec.job_id} is not running (state ${rec.state?.name ?? 'unknown'})`,
    {
      hint: `\`track-launch status ${rec.job_id}\` says how it ended.`,
      details: { job_id: rec.job_id, state: rec.state?.name ?? null },
    },
  );
