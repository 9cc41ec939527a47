// A job's state -> MLflow run status (pure), from the job-state table.
import { jobState, type JobStateName } from '../core';
import type { RunStatus } from './mlflow/types';

/** The run status for a job state; a job that ended in a state that is not final (UNKNOWN: nothing
 *  says it completed) counts as FAILED. */
export function runStatusFor(state: JobStateName | undefined, final: boolean): RunStatus {
  const outcome = jobState(state).outcome;
  return final && outcome === 'RUNNING' ? 'FAILED' : outcome;
}

/** A rank that exited non-zero failed, whatever the job's state says. */
export function rankStatusFor(jobStatus: RunStatus, exitCode: number | undefined): RunStatus {
  if (jobStatus === 'FINISHED' && exitCode !== undefined && exitCode !== 0) return 'FAILED';
  return jobStatus;
}
