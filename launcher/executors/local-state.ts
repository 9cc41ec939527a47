// What the local executor records in job.json's state beyond the shared fields: the supervisor and
// the ranks' process group, each with its start time so that a reused pid is never taken for them.
import { JobRecord } from '../../core';
import type { ProcessRef } from './local-processes';

export type LocalJobState = NonNullable<JobRecord['state']> & {
  supervisor_start?: number;
  pgid?: number; // the process group of job.local.sh and everything it starts (the script's pid)
  pgid_start?: number;
};

export const withLocalState = (r: JobRecord, state: LocalJobState): JobRecord => ({ ...r, state });

export const localState = (r: JobRecord): LocalJobState | undefined => r.state as LocalJobState | undefined;

/** The recorded supervisor; without a start time (none could be read) only its pid. */
export const supervisorOf = (s: LocalJobState | undefined): { pid: number; start?: number } | undefined =>
  s?.supervisor_pid ? { pid: s.supervisor_pid, start: s.supervisor_start } : undefined;

export function groupOf(s: LocalJobState | undefined): ProcessRef | undefined {
  return s?.pgid && s.pgid_start !== undefined ? { pid: s.pgid, start: s.pgid_start } : undefined;
}
