// The local job's processes, known by pid AND start time (field 22 of /proc/<pid>/stat, in clock
// ticks since boot): a pid the kernel has given to another process since is never signalled.
import * as fs from 'fs';
import { setTimeout as sleep } from 'timers/promises';
import { JobRecord, procStat, TrackLaunchError, type ProcStat } from '../../core';

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

// How long processes sent SIGKILL may take to be gone: kill() only queues the signal, and a loaded
// machine may run a killed process's exit a while later.
const KILLED_GONE_MS = 5_000;

/** SIGTERM to the job's process group (unless `term` is false), then SIGKILL to what is left of it
 *  after `graceMs`, waiting without blocking until none of it runs; false when none of it was left
 *  to signal. */
export async function stopJobGroup(group: ProcessRef, graceMs: number, term = true): Promise<boolean> {
  if (term && !signalJobGroup(group, 'SIGTERM')) return false;
  const deadline = Date.now() + graceMs;
  while (jobGroupMembers(group).length > 0 && Date.now() < deadline) await sleep(100);
  if (!signalJobGroup(group, 'SIGKILL')) return true;
  const goneBy = Date.now() + KILLED_GONE_MS;
  while (jobGroupMembers(group).length > 0 && Date.now() < goneBy) await sleep(10);
  return true;
}

// What the local executor records in job.json's state beyond the shared fields: the supervisor and
// the ranks' process group, each with its start time.
export type LocalJobState = NonNullable<JobRecord['state']> & {
  supervisor_start?: number;
  pgid?: number; // the process group of job.local.sh and everything it starts (the script's pid)
  pgid_start?: number;
};

export const withLocalState = (r: JobRecord, state: LocalJobState): JobRecord => ({ ...r, state });

export const localState = (r: JobRecord): LocalJobState | undefined => r.state as LocalJobState | undefined;

/** The recorded supervisor; without a start time (none could be read) only its pid. */
export const supervisorOf = (s: LocalJobState | undefined): { pid: number; start?: number } | undefined =>
  s?.supervisor_pid ? { pid: s.supervisor_pid, start: s.supervisor_start } : undefined;

export function groupOf(s: LocalJobState | undefined): ProcessRef | undefined {
  return s?.pgid && s.pgid_start !== undefined ? { pid: s.pgid, start: s.pgid_start } : undefined;
}

// How long a job's processes may take to end after SIGTERM before SIGKILL (a failed rank, a cancel,
// a supervisor that died): TRACK_LAUNCH_KILL_GRACE seconds, default 10.
const KILL_GRACE_VAR = 'TRACK_LAUNCH_KILL_GRACE';
const DEFAULT_KILL_GRACE_S = 10;

/** The grace period in ms; a value that is not a number of seconds from 0 to 3600 is refused. */
export function killGraceMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[KILL_GRACE_VAR];
  if (raw === undefined || raw.trim() === '') return DEFAULT_KILL_GRACE_S * 1000;
  const s = Number(raw);
  if (!Number.isFinite(s) || s < 0 || s > 3600)
    throw new TrackLaunchError('INVALID_SPEC', `${KILL_GRACE_VAR}=${JSON.stringify(raw)} is not valid`, {
      hint: `Give the seconds between SIGTERM and SIGKILL for local jobs, 0 to 3600 (default ${DEFAULT_KILL_GRACE_S}).`,
    });
  return Math.round(s * 1000);
}
