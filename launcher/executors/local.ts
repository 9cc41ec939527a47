// The local executor: the ranks as processes on this machine, under a detached supervisor
// (local-supervisor.ts) that records the job's state in job.json.
import { spawn } from 'child_process';
import { randomBytes } from 'crypto';
import { once } from 'events';
import * as path from 'path';
import { setTimeout as sleep } from 'timers/promises';
import { isFinal, jobState, JobRecord, JobStateName, procStat, readJobRecord, recordJob } from '../../core';
import { firstFailedRank, readAllRankFacts } from '../../core';
import { TrackLaunchError, updateJobRecord } from '../../core';
import { jobEnvironment } from '../plan/job-env';
import { SubmitPlan } from '../plan/plan';
import type { BeforeSubmit, Executor, SubmittedJob } from './executor';
import { groupOf, isRunning, killGraceMs, localState, processRef, stopJobGroup } from './local-processes';
import { supervisorOf, withLocalState } from './local-processes';
import { notRunning } from './not-running';
import { startInRunDir } from './prepare-run-dir';

async function submitLocal(plan: SubmitPlan, now: Date, beforeSubmit?: BeforeSubmit): Promise<SubmittedJob> {
  const graceMs = killGraceMs(); // refused before anything is written
  const runDir = plan.spec.runDir;
  // Unique also for two submissions in the same millisecond (the job index is keyed by it).
  const jobId = `local-${now.getTime().toString(36)}-${randomBytes(2).toString('hex')}`;
  const start = async () => {
    updateJobRecord(runDir, (r) => ({ ...r, job_id: jobId, cluster: 'local', state: { name: 'PENDING' } }));
    const child = spawn(
      process.execPath,
      [path.join(__dirname, 'local-supervisor.js'), runDir, plan.scriptPath, jobId, String(graceMs)],
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
    // in between must find it; the supervisor takes a while to start, so this comes first.
    const sup = child.pid ? processRef(child.pid) : undefined;
    if (sup) {
      updateJobRecord(runDir, (r) =>
        r.state?.name === 'PENDING'
          ? withLocalState(r, { ...r.state, supervisor_pid: sup.pid, supervisor_start: sup.start })
          : r,
      );
    }
    // A process that could not start (too many processes, the directory gone) says so by 'error'.
    try {
      await once(child, 'spawn');
    } catch (e) {
      throw new TrackLaunchError('COMMAND_FAILED', `local supervisor: ${(e as Error).message}`, { cause: e });
    }
  };
  await startInRunDir(plan, 'local', now, start, beforeSubmit);
  recordJob(jobId, runDir, 'local');
  return { jobId, runDir };
}

/** Alive and not a zombie (a supervisor we spawned stays one until our event loop reaps it); the
 *  same process as recorded where its start time was. */
function supervisorAlive(sup: { pid: number; start?: number }): boolean {
  if (sup.start !== undefined) return isRunning({ pid: sup.pid, start: sup.start });
  try {
    process.kill(sup.pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  return procStat(sup.pid)?.state !== 'Z';
}

/** Record a final state unless the job has one already (the supervisor may just have written it). */
function endIfRunning(runDir: string, name: JobStateName, reason: string): JobRecord {
  return updateJobRecord(runDir, (r) =>
    r.state && !isFinal(r) ? withLocalState(r, { ...r.state, name, reason, ended_at: Date.now() / 1000 }) : r,
  );
}

/** A job whose script ran by hand, without the supervisor (on a machine without Node.js: test/gpu/),
 *  has no state in job.json: once every rank has recorded its exit code, the state is theirs. */
function endedWithoutSupervisor(runDir: string, rec: JobRecord): JobRecord {
  const facts = readAllRankFacts(runDir);
  const ended = facts.filter((f) => f.exit_code !== undefined && f.ended_at !== undefined);
  if (rec.state || facts.length === 0 || ended.length < rec.spec.world_size) return rec;
  const failed = firstFailedRank(facts);
  return updateJobRecord(runDir, (r) =>
    r.state
      ? r
      : withLocalState(r, {
          name: failed ? 'FAILED' : 'COMPLETED',
          exit_code: failed?.exit_code ?? 0,
          nodes: [...new Set(facts.map((f) => f.host))].join(','),
          started_at: Math.min(...facts.map((f) => f.started_at)),
          ended_at: Math.max(...ended.map((f) => f.ended_at ?? 0)),
          reason: "run without the local supervisor: the state is the ranks' exit codes",
          failed_rank: failed?.rank,
          failed_host: failed?.host,
        }),
  );
}

/** The recorded state; a job whose supervisor is gone (killed -9, the machine rebooted) is FAILED. */
function localStatus(runDir: string): JobRecord {
  const rec = endedWithoutSupervisor(runDir, readJobRecord(runDir));
  const sup = supervisorOf(localState(rec));
  if (rec.state && !isFinal(rec) && sup && !supervisorAlive(sup))
    return endIfRunning(runDir, 'FAILED', SUPERVISOR_GONE);
  return rec;
}

const SUPERVISOR_GONE = 'the local supervisor process died before the job ended (killed?)';

/** SIGTERM to the supervisor, which stops every rank and records CANCELLED; without a supervisor
 *  (it was killed) the recorded process group is stopped here, if it is still the job's. */
async function cancelLocal(runDir: string, graceMs: number): Promise<void> {
  const rec = readJobRecord(runDir);
  const st = localState(rec);
  const sup = supervisorOf(st);
  const running = st !== undefined && !jobState(st.name).final;
  if (running && sup && supervisorAlive(sup)) return cancelThroughSupervisor(runDir, sup.pid);
  const group = groupOf(st);
  const stopped = group ? await stopJobGroup(group, graceMs) : false;
  // The supervisor is gone: the job ends here; else stopping an ended job's leftovers is a success.
  if (running && sup)
    endIfRunning(
      runDir,
      stopped ? 'CANCELLED' : 'FAILED',
      stopped ? `${SUPERVISOR_GONE}; cancel stopped its ranks` : SUPERVISOR_GONE,
    );
  else if (!stopped) throw notRunning(rec);
}

/** A supervisor still starting (PENDING) may not handle signals yet: SIGTERM ends it before any rank
 *  started, and the job is recorded CANCELLED here unless it records a state of its own within 5 s. */
async function cancelThroughSupervisor(runDir: string, pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
  if (readJobRecord(runDir).state?.name !== 'PENDING') return;
  const deadline = Date.now() + 5_000;
  while (supervisorAlive({ pid }) && readJobRecord(runDir).state?.name === 'PENDING' && Date.now() < deadline)
    await sleep(20);
  if (supervisorAlive({ pid })) return; // it handles the signal itself
  endIfRunning(runDir, 'CANCELLED', 'cancelled before any rank started');
}

export const localExecutor: Executor = {
  name: 'local',
  submit: submitLocal,
  refresh: async (runDir) => localStatus(runDir),
  cancel: async (runDir, signal) => {
    if (signal)
      throw new TrackLaunchError(
        'INVALID_SPEC',
        '--signal is for Slurm jobs; the local executor only cancels',
      );
    await cancelLocal(runDir, killGraceMs());
  },
};
