// The local executor: the ranks as processes on this machine, under a detached supervisor
// (local-supervisor.ts) that records the job's state in job.json.
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError } from '../../core';
import { SubmitPlan } from '../plan/plan';
import { recordJob } from '../../core';
import { readJobRecord, updateJobRecord } from '../../core';
import { JobRecord } from '../../core';
import { isTerminal } from '../../core';
import type { Executor, SubmittedJob } from './executor';
import { prepareRunDir } from './prepare-run-dir';

function submitLocal(plan: SubmitPlan, now: Date): SubmittedJob {
  prepareRunDir(plan, 'local', now);
  const jobId = `local-${now.getTime().toString(36)}`;
  updateJobRecord(plan.spec.runDir, (r) => ({
    ...r,
    job_id: jobId,
    cluster: 'local',
    state: { name: 'PENDING' },
  }));
  const child = spawn(
    process.execPath,
    [path.join(__dirname, 'local-supervisor.js'), plan.spec.runDir, plan.scriptPath, jobId],
    {
      cwd: plan.cwd,
      detached: true,
      stdio: 'ignore',
    },
  );
  child.unref();
  // The supervisor's pid from the start, not only once it records RUNNING: a cancel (Ctrl-C)
  // in between must find it. Node takes tens of milliseconds to start it, so this comes first.
  if (child.pid) {
    const pid = child.pid;
    updateJobRecord(plan.spec.runDir, (r) =>
      r.state?.name === 'PENDING' ? { ...r, state: { ...r.state, supervisor_pid: pid } } : r,
    );
  }
  recordJob(jobId, plan.spec.runDir, 'local');
  return { jobId, runDir: plan.spec.runDir };
}

/** Alive and not a zombie (a supervisor we spawned stays one until our event loop reaps it). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true; // no /proc: kill(pid, 0) is all we know
  }
};

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** The recorded state; a RUNNING job whose supervisor is gone (machine rebooted, killed -9) is FAILED. */
function localStatus(runDir: string): JobRecord {
  const rec = readJobRecord(runDir);
  const pid = rec.state?.supervisor_pid;
  if (rec.state && !isTerminal(rec.state.name) && pid && !alive(pid)) {
    return updateJobRecord(runDir, (r) => ({
      ...r,
      state: {
        ...r.state!,
        name: 'FAILED',
        reason: 'the local supervisor process is gone',
        ended_at: Date.now() / 1000,
      },
    }));
  }
  return rec;
}

/**
 * SIGTERM to the supervisor, which stops every rank and records CANCELLED. A supervisor still
 * starting (PENDING) may not handle signals yet: SIGTERM then ends it before it started any
 * rank, and the job is recorded CANCELLED here.
 */
function cancelLocal(runDir: string, waitMs = 5_000): void {
  const rec = readJobRecord(runDir);
  const pid = rec.state?.supervisor_pid;
  if (!pid || !rec.state || isTerminal(rec.state.name)) {
    throw new TrackLaunchError(
      'NOT_FOUND',
      `local job ${rec.job_id} is not running (state ${rec.state?.name ?? 'unknown'})`,
    );
  }
  try {
    process.kill(pid, 'SIGTERM');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
  if (rec.state.name !== 'PENDING') return;
  const deadline = Date.now() + waitMs;
  while (alive(pid) && readJobRecord(runDir).state?.name === 'PENDING' && Date.now() < deadline)
    sleepSync(20);
  if (alive(pid)) return; // it handles the signal itself
  updateJobRecord(runDir, (r) =>
    r.state && !isTerminal(r.state.name)
      ? {
          ...r,
          state: {
            ...r.state,
            name: 'CANCELLED',
            reason: 'cancelled before any rank started',
            ended_at: Date.now() / 1000,
          },
        }
      : r,
  );
}

export const localExecutor: Executor = {
  name: 'local',
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
