// One line of `track-launch doctor`: a verdict, what was checked, what was found or what to do.
import { TrackLaunchError, type ErrorCode } from '../../core';

export type Verdict = 'OK' | 'WARN' | 'FAIL';

export interface DoctorCheck {
  verdict: Verdict;
  /** Short name of the check: `slurm-squeue`, `run-dir`, `mlflow-auth`, ... */
  check: string;
  /** What was found (OK), or what to do about it (WARN, FAIL). */
  detail: string;
  /** FAIL: the kind of failure, which sets doctor's exit code (core/errors.ts). */
  code?: ErrorCode;
}

export const ok = (check: string, detail: string): DoctorCheck => ({ verdict: 'OK', check, detail });
export const warn = (check: string, detail: string): DoctorCheck => ({ verdict: 'WARN', check, detail });
export const fail = (check: string, detail: string, code: ErrorCode): DoctorCheck => ({
  verdict: 'FAIL',
  check,
  detail,
  code,
});

/** A failed step as a FAIL line: the error's message and hint, and its code. Only our own errors:
 *  anything else is a bug and propagates. */
export function failFrom(check: string, err: unknown, what = ''): DoctorCheck {
  if (!(err instanceof TrackLaunchError)) throw err;
  const text = [what, err.message].filter(Boolean).join(': ');
  return fail(check, err.hint ? `${text}; ${err.hint}` : text, err.code);
}
