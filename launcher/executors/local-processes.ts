// The local job's processes, known by pid AND start time (field 22 of /proc/<pid>/stat, in clock
// ticks since boot): a pid the kernel has given to another process since is never signalled.
import * as fs from 'fs';
import { setTimeout as sleep } from 'timers/promises';
import { procStat, type ProcStat } from '../../core';

/** A process as recorded in job.json: its pid and when it started. */
export interface ProcessRef {
  pid: number;
  start: number;
}

/** The reference to record for a running process (undefined when it is already gone). */
export function processRef(pid: number): ProcessRef | undefined {
  const st = procStat(pid);
  return st ? { pid, start: st.start } : undefined;
}

/** The recorded process still runs: same pid, same start time, not a zombie. */
export function isRunning(ref: ProcessRef, stat: (pid: number) => ProcStat | undefined = procStat): boolean {
  const st = stat(ref.pid);
  return st !== undefined && st.start === ref.start && st.state !== 'Z';
}

function allProcStats(): ProcStat[] {
  return fs
    .readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map((n) => procStat(Number(n)))
    .filter((s): s is ProcStat => s !== undefined);
}

/**
 * The live (non-zombie) members of the recorded process group, when it is still the job's: its
 * leader (pid = pgid) is the recorded one, or gone with members started after it. A pid that is
 * some other process now means the group is gone (the kernel reuses no pid that is a live group's id).
 */
export function jobGroupMembers(group: ProcessRef, stats: () => ProcStat[] = allProcStats): ProcStat[] {
  const all = stats();
  const leader = all.find((s) => s.pid === group.pid);
  if (leader && leader.start !== group.start) return [];
  return all.filter((s) => s.pgrp === group.pid && s.start >= group.start && s.state !== 'Z');
}

/** Signal the job's process group if it is still the job's and alive; whether it was signalled. */
export function signalJobGroup(
  group: ProcessRef,
  signal: NodeJS.Signals,
  stats: () => ProcStat[] = allProcStats,
  kill: (pid: number, signal: NodeJS.Signals) => void = process.kill,
): boolean {
  if (jobGroupMembers(group, stats).length === 0) return false;
  try {
    kill(-group.pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false; // ended meanwhile
    throw err;
  }
  return true;
}

/** SIGTERM to the job's process group (unless `term` is false), then SIGKILL to what is left of it
 *  after `graceMs`, waiting without blocking; false when none of it was left to signal. */
export async function stopJobGroup(group: ProcessRef, graceMs: number, term = true): Promise<boolean> {
  if (term && !signalJobGroup(group, 'SIGTERM')) return false;
  const deadline = Date.now() + graceMs;
  while (jobGroupMembers(group).length > 0 && Date.now() < deadline) await sleep(100);
  signalJobGroup(group, 'SIGKILL');
  return true;
}
