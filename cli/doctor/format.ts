// doctor's output (pure): one line per check, `OK|WARN|FAIL  <check>  <what to do>`, and its exit code.
import { EXIT_CODES } from '../../core';
import type { DoctorCheck } from '../../launcher';

export function formatCheck(c: DoctorCheck, width = 18): string {
  return `${c.verdict.padEnd(4)}  ${c.check.padEnd(width)}  ${c.detail}`;
}

export function summary(checks: readonly DoctorCheck[]): string {
  const n = (v: DoctorCheck['verdict']) => checks.filter((c) => c.verdict === v).length;
  return `${n('FAIL')} failed, ${n('WARN')} warning(s), ${n('OK')} ok`;
}

/** 0 without a FAIL; else the exit code of the first failure's kind (core/errors.ts). */
export function doctorExitCode(checks: readonly DoctorCheck[]): number {
  const first = checks.find((c) => c.verdict === 'FAIL');
  return first ? EXIT_CODES[first.code ?? 'COMMAND_FAILED'] : 0;
}
