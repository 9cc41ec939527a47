// Slurm's job states: one table, and every view of them derived from it.

/** MLflow's status for a run whose job is in a state (tracking-plugin's RunStatus, which core cannot import). */
export type JobOutcome = 'RUNNING' | 'FINISHED' | 'FAILED' | 'KILLED';

// Per state: squeue's short code (%t); final: Slurm is done with the job (a job it requeues is
// PENDING again, never PREEMPTED or NODE_FAIL, as slurmctld reports it); severity: an array whose tasks
// did not all complete ends in its most severe task state; the MLflow status of a job in that state.
// UNKNOWN: nothing could be read; a job that ends so counts as failed.
const TABLE = [
  ['PENDING', 'PD', false, 0, 'RUNNING'],
  ['CONFIGURING', 'CF', false, 0, 'RUNNING'],
  ['RUNNING', 'R', false, 0, 'RUNNING'],
  ['COMPLETING', 'CG', false, 0, 'RUNNING'],
  ['SUSPENDED', 'S', false, 0, 'RUNNING'],
  ['REQUEUED', 'RQ', false, 0, 'RUNNING'],
  ['RESIZING', 'RS', false, 0, 'RUNNING'],
  ['UNKNOWN', '', false, 0, 'RUNNING'],
  ['COMPLETED', 'CD', true, 0, 'FINISHED'],
  ['CANCELLED', 'CA', true, 1, 'KILLED'],
  ['PREEMPTED', 'PR', true, 2, 'KILLED'],
  ['DEADLINE', 'DL', true, 3, 'KILLED'],
  ['BOOT_FAIL', 'BF', true, 4, 'FAILED'],
  ['TIMEOUT', 'TO', true, 5, 'FAILED'],
  ['FAILED', 'F', true, 6, 'FAILED'],
  ['OUT_OF_MEMORY', 'OOM', true, 7, 'FAILED'],
  ['NODE_FAIL', 'NF', true, 8, 'FAILED'],
] as const;

export type JobStateName = (typeof TABLE)[number][0];

export const JOB_STATE_NAMES: readonly JobStateName[] = TABLE.map((row) => row[0]);

export type JobStateInfo = { code: string; final: boolean; severity: number; outcome: JobOutcome };

const ROWS = new Map<string, JobStateInfo>(
  TABLE.map(([name, code, final, severity, outcome]) => [name, { code, final, severity, outcome }]),
);
const BY_CODE = new Map<string, JobStateName>(TABLE.map((row) => [row[1], row[0]]));

/** The table's row for a state; a name not in it (job.json is untrusted input) reads as UNKNOWN. */
export const jobState = (name: string | undefined): JobStateInfo =>
  ROWS.get(name ?? 'UNKNOWN') ?? ROWS.get('UNKNOWN')!;

/** The job is over: its record's state is final (Slurm is done with it; job.json has its end time). */
export const isFinal = (job: { state?: { name: string } } | undefined): boolean =>
  jobState(job?.state?.name).final;

/** "CANCELLED by 1000" -> CANCELLED; "RUNNING+" -> RUNNING; "CD" -> COMPLETED; junk -> UNKNOWN. */
export function baseState(raw: string): JobStateName {
  const word = raw.trim().split(/[\s+]/)[0].toUpperCase();
  if (ROWS.has(word)) return word as JobStateName;
  return BY_CODE.get(word) ?? 'UNKNOWN';
}

/** Slurm's "code:signal" exit code. */
export function parseExitCode(text: string | undefined): { code: number; signal: number } | undefined {
  const m = /^(\d+):(\d+)$/.exec((text ?? '').trim());
  return m ? { code: Number(m[1]), signal: Number(m[2]) } : undefined;
}
