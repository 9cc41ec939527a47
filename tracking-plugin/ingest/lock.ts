// One ingester per run dir. tracking/lock names its holder: host, pid, boot id and the process's
// start time, so a lock is known stale when its process is gone, when that pid is now another
// process, or when the host rebooted since. A holder on another host cannot be checked: its lock
// is never taken over. Taking over is one atomic step that only one ingester can win: the claim
// file named after the stale lock's content is created exclusively, its creator checks the lock
// still holds that content and renames its own over it (core/rundir/ingest-lock.ts).
import * as os from 'os';
import {
  bootId,
  createExclusive,
  lockClaimFile,
  processStart,
  readHolder,
  removeFile,
  removeLockTakeovers,
  trackingPaths,
  TrackLaunchError,
  writeAtomic,
} from '../../core';

export interface LockHolder {
  host: string;
  pid: number;
  boot_id?: string;
  start?: string;
}

/** This process as a lock holder. */
export function me(): LockHolder {
  const boot = bootId();
  const start = processStart(process.pid);
  return {
    host: os.hostname(),
    pid: process.pid,
    ...(boot === undefined ? {} : { boot_id: boot }),
    ...(start === undefined ? {} : { start }),
  };
}

/** A lock's content: one JSON line; the older "pid host" form is read too. */
export function parseHolder(text: string): LockHolder | undefined {
  if (text.startsWith('{')) {
    try {
      const h = JSON.parse(text) as LockHolder;
      return typeof h.host === 'string' && Number.isInteger(h.pid) ? h : undefined;
    } catch {
      return undefined; // not ours: treated as a holder that cannot be checked
    }
  }
  const [pid, host] = text.split(' ');
  return host && /^\d+$/.test(pid) ? { host, pid: Number(pid) } : undefined;
}

/** True only when the holder provably is gone: same host, and another boot, no such process, or
 *  that pid now belongs to a process that started at another time. */
export function isStale(h: LockHolder | undefined, self: LockHolder = me()): boolean {
  if (!h || h.host !== self.host) return false;
  if (h.boot_id !== undefined && self.boot_id !== undefined && h.boot_id !== self.boot_id) return true;
  if (!alive(h.pid)) return true;
  if (h.start === undefined) return false;
  const start = processStart(h.pid);
  return start === undefined || start !== h.start; // gone meanwhile, or that pid is another process now
}

export function acquireLock(runDir: string): () => Promise<void> {
  const file = trackingPaths(runDir).lock;
  const self = me();
  const line = JSON.stringify(self);
  const release = async () => {
    const now = readHolder(runDir, file);
    if (now !== line) {
      const hint = 'two ingesters ran at once: run ingest again to check every point arrived';
      const message = `${file} was taken over while this ingest held it (now: ${now || 'gone'})`;
      throw new TrackLaunchError('TRACKING', message, { hint });
    }
    removeFile(runDir, file);
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(runDir, file, line + '\n')) {
      removeLockTakeovers(runDir); // claims on locks of the past: they name contents no lock has now
      return release;
    }
    const held = readHolder(runDir, file);
    if (held === '') continue; // released meanwhile
    const holder = parseHolder(held);
    if (!isStale(holder, self)) throw busy(file, holder, held);
    if (takeOver(runDir, held, line, self)) {
      removeLockTakeovers(runDir);
      return release;
    }
  }
  throw new TrackLaunchError('TRACKING', `cannot take the lock ${file}: it keeps changing`, {
    hint: 'another ingest is starting: wait for it to finish',
  });
}

/** Replace the stale lock `held` by `line`; false when the lock changed meanwhile (look again). */
function takeOver(runDir: string, held: string, line: string, self: LockHolder): boolean {
  const lock = trackingPaths(runDir).lock;
  let chain = held;
  for (let depth = 0; depth < 8; depth++) {
    const claim = lockClaimFile(runDir, chain);
    if (createExclusive(runDir, claim, line + '\n')) {
      if (readHolder(runDir, lock) !== held) {
        // taken over meanwhile (its winner tidied the claims before this one was made): look again
        removeFile(runDir, claim);
        return false;
      }
      writeAtomic(runDir, lock, line + '\n'); // one atomic step: only a claim's winner does this
      return true;
    }
    const claimer = readHolder(runDir, claim);
    if (claimer === '') return false; // the claim is gone: its winner holds the lock now
    const who = parseHolder(claimer);
    if (!isStale(who, self)) throw busy(lock, who, claimer);
    chain = `${chain}\n${claimer}`; // its claimer died before finishing: claim that claim
  }
  return false;
}

function busy(file: string, h: LockHolder | undefined, raw: string): TrackLaunchError {
  const who = h ? `pid ${h.pid} on ${h.host}` : JSON.stringify(raw);
  return new TrackLaunchError('TRACKING', `another ingest holds ${file} (${who})`, {
    hint: `wait for it to finish (or, if that process is gone, remove ${file})`,
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
