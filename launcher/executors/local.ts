// The local executor: the ranks as processes on this machine, under a detached supervisor
// (local-supervisor.ts) that records the job's state in job.json.
import { spawn } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError } from '../../core';
import { jobEnvironment } from '../plan/job-env';
import { SubmitPlan } from '../plan/plan';
import { recordJob } from '../../core';
import { readJobRecord, updateJobRecord } from '../../core';
import { JobRecord } from '../../core';
import { isTerminal, JobStateName } from '../../core';
import type { Executor, SubmittedJob } from './executor';
import { killGraceMs } from './kill-grace';
import {
  isRunning,
  jobGroupMembers,
  procStat,
  ProcessRef,
  processRef,
  signalJobGroup,
} from './local-processes';
import { groupOf, localState, supervisorOf, withLocalState } from './local-state';
import { prepareRunDir } from './prepare-run-dir';

const HAVE_PROC = fs.existsSync('/proc/self/stat');

function submitLocal(plan: SubmitPlan, now: Date): SubmittedJob {
  const graceMs = killGraceMs(); // refused before anything is written
  prepareRunDir(plan, 'local', now);
  // Unique also for two submissions in the same millisecond (the job index is keyed by it).
  const jobId = `local-${now.getTime().toString(36)}-${randomBytes(2).toString('hex')}`;
  updateJobRecord(plan.spec.runDir, (r) => ({
    ...r,
    job_id: jobId,
    cluster: 'local',
    state: { name: 'PENDING' },
  }));
  const child = spawn(
    process.execPath,
    [path.join(__dirname, 'local-supervisor.js'), plan.spec.runDir, plan.scriptPath, jobId, String(graceMs)],
    {
      cwd: plan.cwd,
      detached: true,
      stdio: 'ignore',
      // --env values, and no MLflow credentials unless --env names them (never in the script).
      env: jobEnvironment(plan.spec, process.env),
    },
  );
  child.unref();
  // The supervisor's pid from the start, not only once it records RUNNING: a cancel (Ctrl-C)
  // in between must find it. Node takes tens of milliseconds to start it, so this comes first.
  const sup = child.pid ? processRef(child.pid) : undefined;
  if (sup) {
    updateJobRecord(plan.spec.runDir, (r) =>
      r.state?.name === 'PENDING'
        ? withLocalState(r, { ...r.state, supervisor_pid: sup.pid, supervisor_start: sup.start })
        : r,
    );
  }
  recordJob(jobId, plan.spec.runDir, 'local');
  return { jobId, runDir: plan.spec.runDir };
}

/** Alive and not a zombie (a supervisor we spawned stays one until our event loop reaps it); the
 *  same process as recorded where its start time was. */
function supervisorAlive(sup: { pid: number; start?: number }): boolean {
  if (sup.start !== undefined && HAVE_PROC) return isRunning({ pid: sup.pid, start: sup.start });
  try {
    process.kill(sup.pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  return procStat(sup.pid)?.state !== 'Z';
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Record a final state unless the job has one already (the supervisor may just have written it). */
function endIfRunning(runDir: string, name: JobStateName, reason: string): JobRecord {
  return updateJobRecord(runDir, (r) =>
    r.state && !isTerminal(r.state.name)
      ? withLocalState(r, { ...r.state, name, reason, ended_at: Date.now() / 1000 })
      : r,
  );
}

/** The recorded state; a job whose supervisor is gone (killed -9, the machine rebooted) is FAILED. */
function localStatus(runDir: string): JobRecord {
  const rec = readJobRecord(runDir);
  const sup = supervisorOf(localState(rec));
  if (rec.state && !isTerminal(rec.state.name) && sup && !supervisorAlive(sup))
    return endIfRunning(runDir, 'FAILED', SUPERVISOR_GONE);
  return rec;
}

const SUPERVISOR_GONE = 'the local supervisor process died before the job ended (killed?)';

/** SIGTERM to what is left of the job's process group, SIGKILL after the grace; whether any was left. */
function stopGroupSync(group: ProcessRef, graceMs: number): boolean {
  if (!signalJobGroup(group, 'SIGTERM')) return false;
  const deadline = Date.now() + graceMs;
  while (jobGroupMembers(group).length > 0 && Date.now() < deadline) sleepSync(100);
  signalJobGroup(group, 'SIGKILL');
  return true;
}

/**
 * SIGTERM to the supervisor, which stops every rank and records CANCELLED. Without a supervisor
 * (it was killed) the recorded process group is stopped here, if it is still the job's. A
 * supervisor still starting (PENDING) may not handle signals yet: SIGTERM then ends it before it
 * started any rank, and the job is recorded CANCELLED here.
 */
function cancelLocal(runDir: string, graceMs: number, waitMs = 5_000): void {
  const rec = readJobRecord(runDir);
  const st = localState(rec);
  const sup = supervisorOf(st);
  const running = st !== undefined && !isTerminal(st.name);
  if (running && sup && supervisorAlive(sup)) return cancelThroughSupervisor(runDir, sup.pid, waitMs);
  const group = groupOf(st);
  const stopped = group ? stopGroupSync(group, graceMs) : false;
  if (running && sup) {
    endIfRunning(
      runDir,
      stopped ? 'CANCELLED' : 'FAILED',
      stopped ? `${SUPERVISOR_GONE}; cancel stopped its ranks` : SUPERVISOR_GONE,
    );
    return;
  }
  if (stopped) return; // an ended job's leftovers
  throw new TrackLaunchError(
    'NOT_FOUND',
    `local job ${rec.job_id} is not running (state ${st?.name ?? 'unknown'})`,
  );
}

function cancelThroughSupervisor(runDir: string, pid: number, waitMs: number): void {
  try {
    process.kill(pid, 'SIGTERM');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
  if (readJobRecord(runDir).state?.name !== 'PENDING') return;
  const deadline = Date.now() + waitMs;
  while (supervisorAlive({ pid }) && readJobRecord(runDir).state?.name === 'PENDING' && Date.now() < deadline)
    sleepSync(20);
  if (supervisorAlive({ pid })) return; // it handles the signal itself
  endIfRunning(runDir, 'CANCELLED', 'cancelled before any rank started');
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
    cancelLocal(runDir, killGraceMs());
  },
};
