// Slurm's final job state -> MLflow run status (pure).
import type { JobStateName } from '../core';
import type { RunStatus } from './mlflow/types';

const STATUS: Partial<Record<JobStateName, RunStatus>> = {
  COMPLETED: 'FINISHED',
  FAILED: 'FAILED',
  NODE_FAIL: 'FAILED',
  OUT_OF_MEMORY: 'FAILED',
  TIMEOUT: 'FAILED',
  BOOT_FAIL: 'FAILED',
  CANCELLED: 'KILLED',
  PREEMPTED: 'KILLED',
  DEADLINE: 'KILLED',
};

/** The run status for a job state; states that are not final (RUNNING, PENDING, ...) stay RUNNING,
 *  and UNKNOWN at the end counts as FAILED (nothing says it completed). */
export function runStatusFor(state: JobStateName | undefined, final: boolean): RunStatus {
  const s = state && STATUS[state];
  if (s) return s;
  return final ? 'FAILED' : 'RUNNING';
}

/** A rank that exited non-zero failed, whatever the job's state says. */
export function rankStatusFor(jobStatus: RunStatus, exitCode: number | undefined): RunStatus {
  if (jobStatus === 'FINISHED' && exitCode !== undefined && exitCode !== 0) return 'FAILED';
  return jobStatus;
}
