// tracking/lock and its takeover claims: the files behind one-ingester-per-run-dir (the rules are
// tracking-plugin/ingest/lock.ts). A stale lock is replaced only by whoever first creates the claim
// file named after that very lock's content (create-exclusive), so two ingesters racing for one
// stale lock cannot both proceed; a claim whose maker died is claimed in turn (a longer chain).
// A holder is known by this boot's id and its process's start time (/proc), as local jobs are.
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { trackingPaths } from './layout';
import { listDir, readBounded, removeFile } from './safe-fs';

const CLAIM = /^lock\.takeover-[0-9a-f]{24}$/;

/** The claim on a stale lock whose content (and dead claimers) is `chain`: whoever creates it first
 *  may replace that lock. */
export const lockClaimFile = (runDir: string, chain: string): string =>
  path.join(
    trackingPaths(runDir).dir,
    `lock.takeover-${createHash('sha256').update(chain).digest('hex').slice(0, 24)}`,
  );

/** Who holds tracking/lock or made a claim ('' when it is gone meanwhile). */
export const readHolder = (runDir: string, file: string): string =>
  (readBounded(runDir, file, 4096) ?? Buffer.alloc(0)).toString('utf8').trim();

/** Remove every takeover claim (done by the lock's holder: they name contents it replaced). */
export function removeLockTakeovers(runDir: string): void {
  const dir = trackingPaths(runDir).dir;
  for (const name of listDir(runDir, dir)) if (CLAIM.test(name)) removeFile(runDir, path.join(dir, name));
}

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
