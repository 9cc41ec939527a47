// The Slurm executor: prepare the run directory, sbatch, record the job id; refresh from
// squeue/sacct/scontrol into job.json; scancel.
import { arrayTasks, firstFailedRank, isFinal, jobState, JobRecord, readAllRankFacts } from '../../core';
import { readJobRecord, readJobRecordIfAny, recordArraySubmitted, recordJob } from '../../core';
import { TrackLaunchError, updateJobRecord } from '../../core';
import { jobEnvironment } from '../plan/job-env';
import { SubmitPlan } from '../plan/plan';
import { SlurmClient } from '../slurm/client';
import { JobStatus } from '../slurm/job-status';
import { arrayState } from '../slurm/array-status';
import type { BeforeSubmit, Executor, SubmittedJob } from './executor';
import { notRunning } from './not-running';
import { startInRunDir } from './prepare-run-dir';

async function submit(
  plan: SubmitPlan,
  slurm: SlurmClient,
  now: Date,
  beforeSubmit?: BeforeSubmit,
): Promise<SubmittedJob> {
  const { jobId, cluster } = await startInRunDir(
    plan,
    'slurm',
    now,
    () => slurm.submit(plan.argv, plan.cwd, jobEnvironment(plan.spec, process.env)),
    beforeSubmit,
  );
  updateJobRecord(plan.spec.runDir, (r) => ({ ...r, job_id: jobId, cluster, state: { name: 'PENDING' } }));
  if (plan.spec.array) recordArraySubmitted(plan.spec.runDir, jobId, cluster);
  recordJob(jobId, plan.spec.runDir, 'slurm');
  return { jobId, runDir: plan.spec.runDir };
}

async function refresh(runDir: string, slurm: SlurmClient): Promise<JobRecord> {
  const rec = readJobRecord(runDir);
  if (!rec.job_id || isFinal(rec)) return rec;
  if (rec.array) return refreshArray(runDir, rec, rec.job_id, slurm);
  try {
    return recordState(runDir, await slurm.status(rec.job_id));
  } catch (e) {
    if (e instanceof TrackLaunchError && e.code === 'NOT_FOUND') return rec; // forgotten by Slurm: keep the last state seen
    throw e;
  }
}

/** Record a Slurm status in job.json, with the rank that failed first (from the ranks' facts). */
function recordState(runDir: string, status: JobStatus): JobRecord {
  const failed = firstFailedRank(readAllRankFacts(runDir), status.state);
  return updateJobRecord(runDir, (r) => ({
    ...r,
    restarts: status.restarts ?? r.restarts,
    state: {
      name: status.state,
      exit_code: status.exitCode,
      signal: status.signal,
      reason: status.reason,
      nodes: status.nodes,
      ended_at: jobState(status.state).final ? Date.now() / 1000 : undefined,
      failed_rank: failed?.rank,
      failed_host: failed?.host,
    },
  }));
}

/** An array job: one sacct and one scontrol call for all its tasks; each task's state goes to its own
 *  job.json (task-<N>/), the array's, made from theirs, to the array's. */
async function refreshArray(runDir: string, rec: JobRecord, jobId: string, slurm: SlurmClient) {
  const statuses = await slurm.arrayStatus(jobId);
  const tasks = arrayTasks(runDir, rec).map(({ task, dir }) => {
    const st = statuses.get(task);
    const now = readJobRecordIfAny(dir);
    if (!now || isFinal(now) || !st) return now; // forgotten by Slurm: keep the last state seen
    return recordState(dir, st);
  });
  const whole = arrayState(tasks.map((t) => ({ state: t?.state?.name, exitCode: t?.state?.exit_code })));
  const nodes = [...new Set(tasks.flatMap((t) => (t?.state?.nodes ? [t.state.nodes] : [])))].join(',');
  return updateJobRecord(runDir, (r) => ({
    ...r,
    state: {
      name: whole.state,
      ...(whole.exitCode === undefined ? {} : { exit_code: whole.exitCode }),
      ...(nodes ? { nodes } : {}),
      ...(whole.ended ? { ended_at: Date.now() / 1000 } : {}),
    },
  }));
}

/** The Slurm executor over a given client (tests pass one with a fake process runner). */
export function slurmExecutorWith(slurm: SlurmClient): Executor {
  return {
    name: 'slurm',
    submit: (plan, now, beforeSubmit) => submit(plan, slurm, now, beforeSubmit),
    refresh: (runDir) => refresh(runDir, slurm),
    cancel: async (runDir, signal) => {
      const rec = await refresh(runDir, slurm);
      if (!rec.job_id) throw new TrackLaunchError('NOT_FOUND', `${runDir} holds no submitted job`);
      if (isFinal(rec)) throw notRunning(rec);
      // scancel of a job that ended since the refresh says so on stderr and exits 0.
      if ((await slurm.cancel(rec.job_id, signal)) === 'ended')
        throw notRunning(await refresh(runDir, slurm));
    },
  };
}

export const slurmExecutor: Executor = slurmExecutorWith(new SlurmClient());
