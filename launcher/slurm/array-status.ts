// An array job's tasks from one sacct and one scontrol call (pure parsers), and the array's own
// state from its tasks'.
import { jobState, type JobStateName } from '../../core';
import { parseArraySpec } from '../spec/array-spec';
import { JobStatus, parseSacct, parseScontrolJob, parseScontrolKeyValues } from './job-status';

/** `1-2`, `3,5`, `4-9%2`: the task ids of a pending record; none when it does not parse. */
function taskIds(text: string): number[] {
  const spec = parseArraySpec(text);
  return typeof spec === 'string' ? [] : spec.tasks;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** sacct's lines for the array `jobId`: each started task's own (`122_0`; steps `122_0.batch` are
 *  skipped), and one for the tasks still pending together (`122_[1-2]`). */
export function parseSacctArray(jobId: string, text: string): Map<number, JobStatus> {
  const out = new Map<number, JobStatus>();
  for (const line of text.split('\n')) {
    const id = line.split('|')[0];
    const m = new RegExp(`^${escape(jobId)}_(?:(\\d+)|\\[([^\\]]+)\\])$`).exec(id);
    if (!m) continue;
    const st = parseSacct(id, line);
    if (!st) continue;
    for (const task of m[1] !== undefined ? [Number(m[1])] : taskIds(m[2]))
      out.set(task, { ...st, jobId: `${jobId}_${task}` });
  }
  return out;
}

/** `scontrol show job -o <array job>`: one line per task record (ArrayTaskId=N, a range while pending). */
export function parseScontrolArray(jobId: string, text: string): Map<number, JobStatus> {
  const out = new Map<number, JobStatus>();
  for (const line of text.split('\n')) {
    const kv = parseScontrolKeyValues(line);
    if (kv.ArrayJobId !== jobId || kv.ArrayTaskId === undefined) continue;
    const st = parseScontrolJob(jobId, line);
    if (!st) continue;
    for (const task of taskIds(kv.ArrayTaskId)) out.set(task, { ...st, jobId: `${jobId}_${task}` });
  }
  return out;
}

/** Per task: slurmctld's state while it knows the task (it decides requeues), else accounting's. */
export function mergeArrayStatus(
  acct: Map<number, JobStatus>,
  ctld: Map<number, JobStatus>,
): Map<number, JobStatus> {
  return new Map([...acct, ...ctld]);
}

/** The array's state from its tasks': RUNNING while any runs, PENDING while the rest wait; once all
 *  ended COMPLETED if every task did, else the most severe of theirs; its exit code the largest. */
export function arrayState(tasks: Array<{ state?: JobStateName; exitCode?: number }>): {
  state: JobStateName;
  exitCode?: number;
  ended: boolean;
} {
  const states = tasks.map((t) => t.state ?? 'PENDING');
  const codes = tasks.map((t) => t.exitCode).filter((c): c is number => c !== undefined);
  const exitCode = codes.length ? Math.max(...codes) : undefined;
  if (!states.every((s) => jobState(s).final)) {
    const running = states.some((s) => !jobState(s).final && s !== 'PENDING');
    return { state: running ? 'RUNNING' : 'PENDING', ended: false };
  }
  const worst = states.reduce((w, s) => (jobState(s).severity > jobState(w).severity ? s : w), 'COMPLETED');
  return { state: worst, ...(exitCode === undefined ? {} : { exitCode }), ended: true };
}
