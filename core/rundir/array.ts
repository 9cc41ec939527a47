// Array jobs: the array's run directory holds job.json (with the --array spec and the
// task ids) and job.sbatch; each task N runs in its own run directory, task-<N>/, made at submit
// with its own job.json (job id <array job>_<N>), logs/, rendezvous/ and, for a sweep, params.json.
// A task directory is a run directory like any other: ingest, logs, report read it unchanged.
import { TrackLaunchError } from '../errors';
import { readJobRecordIfAny, writeJobRecord } from './job-record';
import { writeJson } from './json';
import { JobRecord, runPaths } from './layout';
import { checkDirs } from './guards';
import { ensureDir } from './safe-fs';

export interface ArrayTask {
  task: number;
  dir: string;
}

/** The tasks of an array job's run directory, in task order; none for a job that is not an array.
 *  A task directory that is a symlink (or not a directory) is refused: it is untrusted input too. */
export function arrayTasks(runDir: string, rec = readJobRecordIfAny(runDir)): ArrayTask[] {
  return (rec?.array?.tasks ?? []).map((task) => {
    const dir = runPaths(runDir).taskDir(task);
    checkDirs(runDir, dir);
    return { task, dir };
  });
}

/** A task's record: the array's, with the task's own id and parameters. Pure. */
export function taskRecord(top: JobRecord, task: number, params: Record<string, string> = {}): JobRecord {
  const { array: _array, job_id: arrayJobId, state: _state, ...rest } = top;
  return {
    ...rest,
    ...(arrayJobId ? { job_id: `${arrayJobId}_${task}` } : {}),
    spec: { ...top.spec, params: { ...top.spec.params, ...params } },
    array_task: { task_id: task, ...(arrayJobId ? { array_job_id: arrayJobId } : {}) },
  };
}

/** Makes task-<N>/ (0700) with logs/ and rendezvous/, its job.json and, when given, params.json:
 *  before sbatch, so that Slurm's output file (task-%a/logs/job.out) and the parameters are there
 *  when a task starts. `topDir` is freshly claimed by this submission (createRunDir). */
export function createTaskDirs(
  topDir: string,
  top: JobRecord,
  paramsOf: (task: number) => { text: Record<string, string>; raw: Record<string, unknown> } | undefined,
): void {
  for (const { task, dir } of arrayTasks(topDir, top)) {
    const p = runPaths(dir);
    for (const d of [p.root, p.logsDir, p.rendezvousDir]) ensureDir(topDir, d);
    const params = paramsOf(task);
    writeJobRecord(dir, taskRecord(top, task, params?.text));
    if (params) writeJson(topDir, p.params, params.raw);
  }
}

/** After sbatch: every task's record gets its job id `<job>_<N>` and the PENDING state. */
export function recordArraySubmitted(topDir: string, jobId: string, cluster: string | undefined): void {
  for (const { dir } of arrayTasks(topDir)) {
    const rec = readJobRecordIfAny(dir);
    if (!rec?.array_task) continue; // removed by hand: the array's own record still says what ran
    const task = rec.array_task.task_id;
    writeJobRecord(dir, {
      ...rec,
      job_id: `${jobId}_${task}`,
      ...(cluster ? { cluster } : {}),
      array_task: { task_id: task, array_job_id: jobId },
      state: { name: 'PENDING' },
    });
  }
}

/** The run directories a command works on: an array's tasks, or the run directory itself. */
export function runDirsOf(runDir: string): string[] {
  const tasks = arrayTasks(runDir);
  return tasks.length ? tasks.map((t) => t.dir) : [runDir];
}

/** `<job>_<N>` -> task N's run directory below the array's; NOT_FOUND naming the tasks it has. */
export function taskDirOf(arrayDir: string, jobTask: string, task: number): string {
  const tasks = arrayTasks(arrayDir);
  const found = tasks.find((t) => t.task === task);
  if (found) return found.dir;
  throw new TrackLaunchError(
    'NOT_FOUND',
    tasks.length
      ? `job ${jobTask}: the array has no task ${task} (its tasks: ${tasks.map((t) => t.task).join(',')})`
      : `job ${jobTask}: ${arrayDir} is not an array job`,
    { hint: `Give the job id alone for the whole job, or one of its tasks as <job>_<task>.` },
  );
}
