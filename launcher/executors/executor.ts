// One interface over the executors (Slurm, local), so submit/status/cancel/watch do not care
// which one runs the job. Each lives in its own file and exports an object of this shape.
import * as fs from 'fs';
import * as path from 'path';
import { JobRecord, readJobRecord, TrackLaunchError } from '../../core';
import type { Executor as ExecutorName, SubmitPlan } from '../plan/plan';
import { localExecutor } from './local';
import { slurmExecutor } from './slurm';

/** Work on the prepared run directory before the job is submitted (its MLflow runs made); what it
 *  returns undoes that work when the start then fails (sbatch refused the job). */
export type BeforeSubmit = (runDir: string) => Promise<void | (() => Promise<void>)>;

export interface SubmittedJob {
  jobId: string;
  runDir: string;
}

export interface Executor {
  readonly name: ExecutorName;
  /** Prepare the run directory, call `beforeSubmit` on it, start the job, record its id
   *  (startInRunDir: a failure before the start removes what was prepared). */
  submit(plan: SubmitPlan, now: Date, beforeSubmit?: BeforeSubmit): Promise<SubmittedJob>;
  /** Ask for the current state, record it in job.json, return the record. */
  refresh(runDir: string): Promise<JobRecord>;
  cancel(runDir: string, signal?: string): Promise<void>;
}

export const executorFor = (executor: ExecutorName): Executor =>
  executor === 'local' ? localExecutor : slurmExecutor;
export const executorForRunDir = (runDir: string): Executor => executorFor(readJobRecord(runDir).executor);

export function onPath(program: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.PATH ?? '').split(path.delimiter).some((d) => d && fs.existsSync(path.join(d, program)));
}

/** --executor, else slurm where sbatch is on PATH, else local (and say so). */
export function chooseExecutor(
  flag: unknown,
  note: (msg: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): ExecutorName {
  if (flag === 'slurm' || flag === 'local') return flag;
  if (flag !== undefined)
    throw new TrackLaunchError(
      'INVALID_SPEC',
      `--executor: ${JSON.stringify(flag)} is not valid; use slurm or local`,
    );
  if (onPath('sbatch', env)) return 'slurm';
  note('sbatch is not on PATH: running the ranks on this machine (--executor local).');
  return 'local';
}
