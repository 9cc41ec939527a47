// One line of `list`: what the index and the job's record say about a job.
import type { JobIndexEntry, JobRecord, JobStateName } from '../../core';

/** A job's state, or GONE when its run directory is gone. */
export type ListedState = JobStateName | 'GONE';

export interface JobRow {
  job_id: string;
  name: string | null;
  state: ListedState;
  executor: string;
  nodes: number | null;
  nodelist: string | null;
  /** Unix seconds: when the job started, else when it was submitted. */
  started_at: number | null;
  run_dir: string;
  mlflow_url: string | null;
  /** Who tracks it now (the lock's holder), and whether it should be tracked but nobody does. */
  tracker?: { placement: string; host: string; pid: number; alive: boolean | 'unknown' } | null;
  untracked?: boolean;
  /** Why the record could not be read (a damaged job.json); the row is shown regardless. */
  problem?: string;
}

/** The row of an entry whose run directory is gone: only what the index recorded. */
export const goneRow = (e: JobIndexEntry): JobRow => ({
  job_id: e.job_id,
  name: null,
  state: 'GONE',
  executor: e.executor,
  nodes: null,
  nodelist: null,
  started_at: e.at || null,
  run_dir: e.run_dir,
  mlflow_url: null,
});

/** The row of a job from its record (job.json). */
export const recordRow = (e: JobIndexEntry, rec: JobRecord): JobRow => ({
  job_id: rec.job_id ?? e.job_id,
  name: rec.name,
  state: rec.state?.name ?? 'UNKNOWN',
  executor: rec.executor,
  nodes: rec.spec.nodes,
  nodelist: rec.state?.nodes ?? null,
  started_at: rec.state?.started_at ?? rec.submitted_at ?? null,
  run_dir: e.run_dir,
  mlflow_url: null,
});
