// Submit, watch and cancel jobs of the local executor (ranks as processes on this machine).
import { spawn } from 'child_process';
import * as path from 'path';
import { TrackLaunchError } from '../errors';
import { SubmitPlan } from '../plan/plan';
import { recordJob } from '../rundir/job-index';
import { readJobRecord, updateJobRecord } from '../rundir/job-record';
import { JobRecord } from '../rundir/layout';
import { isTerminal } from '../slurm/states';
import { prepareRunDir } from '../submit/prepare-run-dir';

export function submitLocal(plan: SubmitPlan, now: Date): { jobId: string; runDir: string } {
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
    [path.join(__dirname, 'supervisor.js'), plan.spec.runDir, plan.scriptPath, jobId],
    {
      cwd: plan.cwd,
      detached: true,
      stdio: 'ignore',
    },
  );
  child.unref();
  recordJob(jobId, plan.spec.runDir, 'local');
  return { jobId, runDir: plan.spec.runDir };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The recorded state; a RUNNING job whose supervisor is gone (machine rebooted, killed -9) is FAILED. */
export function localStatus(runDir: string): JobRecord {
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

export function cancelLocal(runDir: string): void {
  const rec = readJobRecord(runDir);
  const pid = rec.state?.supervisor_pid;
  if (!pid || !rec.state || isTerminal(rec.state.name)) {
    throw new TrackLaunchError(
      'NOT_FOUND',
      `local job ${rec.job_id} is not running (state ${rec.state?.name ?? 'unknown'})`,
    );
  }
  process.kill(pid, 'SIGTERM');
}
