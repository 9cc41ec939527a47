// This machine's processes as /proc shows them (not run-directory files): the boot id and a process's
// start time tell a process from a later one with its pid (local jobs, ingest locks).
import * as fs from 'fs';

/** A file of /proc (not of the run directory); undefined when it is not there (no such process, or
 *  no /proc). */
function readProc(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (['ENOENT', 'ESRCH'].includes((err as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw err;
  }
}

/** This boot of this machine (Linux); undefined where the kernel does not say. */
export const bootId = (): string | undefined => readProc('/proc/sys/kernel/random/boot_id')?.trim();

export interface ProcStat {
  pid: number;
  /** R, S, D, Z (zombie), ... */
  state: string;
  pgrp: number;
  /** Clock ticks after boot: with the boot id it tells a process from a later one with its pid. */
  start: number;
}

/** /proc/<pid>/stat's text -> its fields; undefined when malformed. The command name (in
 *  parentheses) may hold spaces and parentheses: the fields are read after its last ')'. */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf(' (');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const f = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const pid = Number(text.slice(0, open));
  const pgrp = Number(f[2]);
  const start = Number(f[19]);
  if (!Number.isInteger(pid) || !Number.isInteger(pgrp) || !Number.isInteger(start) || !f[0])
    return undefined;
  return { pid, state: f[0], pgrp, start };
}

/** The process's stat now; undefined when there is no such process (or no /proc). */
export function procStat(pid: number): ProcStat | undefined {
  const text = readProc(`/proc/${pid}/stat`);
  return text === undefined ? undefined : parseProcStat(text);
}

/** When process `pid` started (ProcStat's start, as a string); undefined when there is no such process. */
export const processStart = (pid: number): string | undefined => procStat(pid)?.start.toString();
