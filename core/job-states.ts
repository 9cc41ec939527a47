// Slurm job states: one table, with UNKNOWN for anything unrecognised.
import { JobStateName } from './rundir/layout';

const TERMINAL = new Set<JobStateName>([
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TIMEOUT',
  'NODE_FAIL',
  'PREEMPTED',
  'BOOT_FAIL',
  'DEADLINE',
  'OUT_OF_MEMORY',
]);
const KNOWN = new Set<string>([
  ...TERMINAL,
  'PENDING',
  'CONFIGURING',
  'RUNNING',
  'COMPLETING',
  'SUSPENDED',
  'REQUEUED',
  'RESIZING',
]);
// squeue's short codes, for output printed with %t.
const SHORT: Record<string, JobStateName> = {
  PD: 'PENDING',
  CF: 'CONFIGURING',
  R: 'RUNNING',
  CG: 'COMPLETING',
  S: 'SUSPENDED',
  RQ: 'REQUEUED',
  RS: 'RESIZING',
  CD: 'COMPLETED',
  F: 'FAILED',
  CA: 'CANCELLED',
  TO: 'TIMEOUT',
  NF: 'NODE_FAIL',
  PR: 'PREEMPTED',
  BF: 'BOOT_FAIL',
  DL: 'DEADLINE',
  OOM: 'OUT_OF_MEMORY',
};

/** "CANCELLED by 1000" -> CANCELLED; "RUNNING+" -> RUNNING; "CD" -> COMPLETED; junk -> UNKNOWN. */
export function baseState(raw: string): JobStateName {
  const word = raw.trim().split(/[\s+]/)[0].toUpperCase();
  if (KNOWN.has(word)) return word as JobStateName;
  return SHORT[word] ?? 'UNKNOWN';
}

export const isTerminal = (s: JobStateName): boolean => TERMINAL.has(s);

/** Slurm's "code:signal" exit code. */
export function parseExitCode(text: string | undefined): { code: number; signal: number } | undefined {
  const m = /^(\d+):(\d+)$/.exec((text ?? '').trim());
  return m ? { code: Number(m[1]), signal: Number(m[2]) } : undefined;
}
