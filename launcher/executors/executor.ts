// One interface over the two executors, so submit/status/cancel/follow do not care which runs the job.
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError } from '../../core';
import { cancelLocal, localStatus, submitLocal } from './local';
import { Executor, SubmitPlan } from '../plan/plan';
import { readJobRecord } from '../../core';
import { JobRecord } from '../../core';
import { SlurmClient } from '../slurm/client';
import { isTerminal } from '../../core';
import { recordState } from '../submit/follow';
import { submitToSlurm } from './slurm';

export interface ExecutorOps {
  submit(plan: SubmitPlan, now: Date): Promise<{ jobId: string; runDir: string }>;
  /** Ask for the current state, record it in job.json, return the record. */
  refresh(runDir: string): Promise<JobRecord>;
  cancel(runDir: string, signal?: string): Promise<void>;
}

export function slurmOps(slurm = new SlurmClient()): ExecutorOps {
  return {
    submit: (plan, now) => submitToSlurm(plan, slurm, now),
    refresh: async (runDir) => {
      const rec = readJobRecord(runDir);
      if (!rec.job_id || (rec.state && isTerminal(rec.state.name) && rec.state.ended_at)) return rec;
      try {
        const st = await slurm.status(rec.job_id);
        return recordState(runDir, st, isTerminal(st.state));
      } catch (e) {
        if (e instanceof TrackLaunchError && e.code === 'NOT_FOUND') return rec; // forgotten by Slurm: keep the last state seen
        throw e;
      }
    },
    cancel: async (runDir, signal) => {
      const rec = readJobRecord(runDir);
      if (!rec.job_id) throw new TrackLaunchError('NOT_FOUND', `${runDir} holds no submitted job`);
      await slurm.cancel(rec.job_id, signal);
    },
  };
}

export const localOps: ExecutorOps = {
  submit: async (plan, now) => submitLocal(plan, now),
  refresh: async (runDir) => localStatus(runDir),
  cancel: async (runDir, signal) => {
    if (signal)
      throw new TrackLaunchError(
        'INVALID_SPEC',
        '--signal is for Slurm jobs; the local executor only cancels',
      );
    cancelLocal(runDir);
  },
};

export const opsFor = (executor: Executor): ExecutorOps => (executor === 'local' ? localOps : slurmOps());
export const opsForRunDir = (runDir: string): ExecutorOps => opsFor(readJobRecord(runDir).executor);

export function onPath(program: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.PATH ?? '').split(path.delimiter).some((d) => d && fs.existsSync(path.join(d, program)));
}

/** --executor, else slurm where sbatch is on PATH, else local (and say so). */
export function chooseExecutor(
  flag: unknown,
  note: (msg: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Executor {
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
