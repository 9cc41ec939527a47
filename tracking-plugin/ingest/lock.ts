// One ingester per run dir. tracking/lock names its holder: host, pid, boot id and the process's
// start time, so a lock is known stale when its process is gone, when that pid is now another
// process, or when the host rebooted since. A holder on another host cannot be checked that way:
// its holder touches the lock (mtime, content unchanged) every LOCK_HEARTBEAT_MS, and it counts as
// dead once its job has ended (job.json's state is final) and that heartbeat is older than
// LOCK_DEAD_AFTER_MS. Taking over is one atomic step that only one ingester can win: the claim
// file named after the stale lock's content is created exclusively, its creator checks the lock
// still holds that content and renames its own over it (core/rundir/ingest-lock.ts).
import * as os from 'os';
import {
  bootId,
  createExclusive,
  isFinal,
  lockClaimFile,
  processStart,
  readHolder,
  readJobRecordIfAny,
  removeFile,
  removeLockTakeovers,
  statFile,
  touchFile,
  trackingPaths,
  TrackLaunchError,
  writeAtomic,
} from '../../core';

/** How often the holder touches the lock. */
export const LOCK_HEARTBEAT_MS = 15_000;
/** A holder on another host whose job has ended is dead once its heartbeat is this old. */
export const LOCK_DEAD_AFTER_MS = 60_000;

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

/** What tells a holder on another host is dead: its job ended, and how old its heartbeat is. */
export interface Elsewhere {
  jobFinal: boolean;
  heartbeatAgeMs: number;
}

/** True only when the holder provably is gone: same host, and another boot, no such process, or
 *  that pid now belongs to a process that started at another time; another host, when its job
 *  has ended and its heartbeat is older than LOCK_DEAD_AFTER_MS. */
export function isStale(h: LockHolder | undefined, self: LockHolder = me(), elsewhere?: Elsewhere): boolean {
  if (!h) return false;
  if (h.host !== self.host)
    return !!elsewhere && elsewhere.jobFinal && elsewhere.heartbeatAgeMs > LOCK_DEAD_AFTER_MS;
  if (h.boot_id !== undefined && self.boot_id !== undefined && h.boot_id !== self.boot_id) return true;
  if (!alive(h.pid)) return true;
  if (h.start === undefined) return false;
  const start = processStart(h.pid);
  return start === undefined || start !== h.start; // gone meanwhile, or that pid is another process now
}

/** The lock's (or a claim's) heartbeat age, ms; undefined when the file is gone. */
export function heartbeatAgeMs(runDir: string, file: string): number | undefined {
  const st = statFile(runDir, file);
  return st && Math.max(0, Date.now() - st.mtimeMs);
}

/** isStale for the holder named in `file`, with what a holder elsewhere is judged by. */
function staleIn(runDir: string, file: string, h: LockHolder | undefined, self: LockHolder): boolean {
  if (!h || h.host === self.host) return isStale(h, self);
  const heartbeat = heartbeatAgeMs(runDir, file);
  if (heartbeat === undefined) return false; // gone meanwhile: look again
  return isStale(h, self, { jobFinal: isFinal(readJobRecordIfAny(runDir)), heartbeatAgeMs: heartbeat });
}

/** Touch the lock every LOCK_HEARTBEAT_MS while it holds `line`; stops at the first time it does
 *  not (taken over or removed: release says so) or fails (`failed`, which release throws). Never
 *  keeps the process alive. */
function heartbeat(runDir: string, file: string, line: string): { stop(): void; failed?: unknown } {
  const beat: { stop(): void; failed?: unknown } = { stop: () => clearInterval(timer) };
  const timer = setInterval(() => {
    try {
      if (readHolder(runDir, file) !== line || !touchFile(runDir, file)) beat.stop();
    } catch (err) {
      beat.failed = err;
      beat.stop();
    }
  }, LOCK_HEARTBEAT_MS);
  timer.unref();
  return beat;
}

export function acquireLock(runDir: string): () => Promise<void> {
  const file = trackingPaths(runDir).lock;
  const self = me();
  const line = JSON.stringify(self);
  const held = (): (() => Promise<void>) => {
    removeLockTakeovers(runDir); // claims on locks of the past: they name contents no lock has now
    const beat = heartbeat(runDir, file, line);
    return async () => {
      beat.stop();
      const now = readHolder(runDir, file);
      if (now !== line) {
        const hint = 'two ingesters ran at once: run ingest again to check every point arrived';
        const message = `${file} was taken over while this ingest held it (now: ${now || 'gone'})`;
        throw new TrackLaunchError('TRACKING', message, { hint });
      }
      removeFile(runDir, file);
      if (beat.failed !== undefined) {
        const why = beat.failed instanceof Error ? beat.failed.message : String(beat.failed);
        const hint = `an ingest elsewhere may have taken ${file} over meanwhile: run ingest again to check every point arrived`;
        throw new TrackLaunchError('TRACKING', `the heartbeat of ${file} failed: ${why}`, { hint });
      }
    };
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(runDir, file, line + '\n')) return held();
    const holding = readHolder(runDir, file);
    if (holding === '') continue; // released meanwhile
    const holder = parseHolder(holding);
    if (!staleIn(runDir, file, holder, self)) throw busy(file, holder, holding);
    if (takeOver(runDir, holding, line, self)) return held();
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
    if (!staleIn(runDir, claim, who, self)) throw busy(lock, who, claimer);
    chain = `${chain}\n${claimer}`; // its claimer died before finishing: claim that claim
  }
  return false;
}

function busy(file: string, h: LockHolder | undefined, raw: string): TrackLaunchError {
  const who = h ? `pid ${h.pid} on ${h.host}` : JSON.stringify(raw);
  const elsewhere = h && h.host !== os.hostname();
  return new TrackLaunchError('TRACKING', `another ingest holds ${file} (${who})`, {
    hint: elsewhere
      ? `wait for it to finish; once the job has ended and the lock is ${LOCK_DEAD_AFTER_MS / 1000} s without a heartbeat, the next ingest takes it over`
      : `wait for it to finish (or, if that process is gone, remove ${file})`,
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
