// Execute a plan on Slurm: prepare the run directory, call sbatch, record the job id.
import { SubmitPlan } from '../plan/plan';
import { recordJob } from '../../core';
import { updateJobRecord } from '../../core';
import { SlurmClient } from '../slurm/client';
import { prepareRunDir } from './prepare-run-dir';

export async function submitToSlurm(
  plan: SubmitPlan,
  slurm: SlurmClient,
  now: Date,
): Promise<{ jobId: string; runDir: string }> {
  const undo = prepareRunDir(plan, 'slurm', now);
  let submitted: { jobId: string; cluster?: string };
  try {
    submitted = await slurm.submit(plan.argv, plan.cwd);
  } catch (e) {
    undo(); // nothing ran: leave no trace, and let the same --run-dir be used again
    throw e;
  }
  const { jobId, cluster } = submitted;
  updateJobRecord(plan.spec.runDir, (r) => ({ ...r, job_id: jobId, cluster, state: { name: 'PENDING' } }));
  recordJob(jobId, plan.spec.runDir, 'slurm');
  return { jobId, runDir: plan.spec.runDir };
}
