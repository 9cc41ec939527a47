// tracking/lock and its takeover claims: the files behind one-ingester-per-run-dir (the rules are
// tracking-plugin/ingest/lock.ts). A stale lock is replaced only by whoever first creates the claim
// file named after that very lock's content (create-exclusive), so two ingesters racing for one
// stale lock cannot both proceed; a claim whose maker died is claimed in turn (a longer chain).
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { trackingPaths } from './layout';
import { createExclusive, listDir, readBounded, removeFile, writeAtomic } from './safe-fs';

const CLAIM = /^lock\.takeover-[0-9a-f]{24}$/;

const claimFile = (runDir: string, chain: string) =>
  path.join(
    trackingPaths(runDir).dir,
    `lock.takeover-${createHash('sha256').update(chain).digest('hex').slice(0, 24)}`,
  );

const readSmall = (runDir: string, file: string): string =>
  (readBounded(runDir, file, 4096) ?? Buffer.alloc(0)).toString('utf8').trim();

/** Claim the right to replace a lock whose content (and dead claimers) is `chain`; false when
 *  someone claimed it first. */
export const claimLockTakeover = (runDir: string, chain: string, holder: string): boolean =>
  createExclusive(runDir, claimFile(runDir, chain), holder + '\n');

/** Who claimed `chain` ('' when nobody, or the claim is gone meanwhile). */
export const readLockTakeover = (runDir: string, chain: string): string =>
  readSmall(runDir, claimFile(runDir, chain));

/** Remove the claim on `chain` (its lock changed: the claim names a content no lock has now). */
export const removeLockTakeover = (runDir: string, chain: string): void =>
  removeFile(runDir, claimFile(runDir, chain));

/** Put `holder` into tracking/lock in one atomic step (only a claim's winner does this). */
export const replaceLock = (runDir: string, holder: string): void =>
  writeAtomic(runDir, trackingPaths(runDir).lock, holder + '\n');

/** Remove every takeover claim (done by the lock's holder: they name contents it replaced). */
export function removeLockTakeovers(runDir: string): void {
  const dir = trackingPaths(runDir).dir;
  for (const name of listDir(runDir, dir)) if (CLAIM.test(name)) removeFile(runDir, path.join(dir, name));
}

/** This boot of this machine (Linux); undefined where the kernel does not say. */
export function bootId(): string | undefined {
  return readProc('/proc/sys/kernel/random/boot_id');
}

/** When process `pid` started, in clock ticks since boot (Linux /proc/<pid>/stat, field 22): with
 *  the boot id it tells a process from a later one with the same pid. Undefined when there is no
 *  such process (or no /proc). */
export function processStart(pid: number): string | undefined {
  const stat = readProc(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // the command name (field 2) is in parentheses and may hold spaces: count fields after its end
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19]; // field 22 of the whole line
}

/** A file of /proc (not of the run directory), trimmed; undefined when it is not there. */
function readProc(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return undefined; // no such process (or no /proc)
    throw err;
  }
}
