// Refreshing an array job: one sacct and one scontrol call for all its tasks; each task's state
// goes to its own job.json (task-<N>/), the array's, made from theirs, to the array's job.json.
// The one job watcher (watch/watch-job.ts) follows an array through this like any job.
import {
  arrayTasks,
  isFinal,
  jobState,
  readJobRecord,
  readJobRecordIfAny,
  updateJobRecord,
} from '../../core';
import type { JobRecord } from '../../core';
import { arrayState } from '../slurm/array-status';
import type { SlurmClient } from '../slurm/client';
import type { JobStatus } from '../slurm/job-status';

export async function refreshArray(
  runDir: string,
  slurm: SlurmClient,
  recordState: (dir: string, st: JobStatus, ended: boolean) => JobRecord,
): Promise<JobRecord> {
  const rec = readJobRecord(runDir);
  if (!rec.job_id || isFinal(rec)) return rec;
  const statuses = await slurm.arrayStatus(rec.job_id);
  const tasks = arrayTasks(runDir, rec).map(({ task, dir }) => {
    const st = statuses.get(task);
    const now = readJobRecordIfAny(dir);
    if (!now || isFinal(now) || !st) return now; // forgotten by Slurm: keep the last state seen
    return recordState(dir, st, jobState(st.state).final);
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
