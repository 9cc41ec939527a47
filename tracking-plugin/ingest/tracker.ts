// tracking/tracker.json: the ingester that holds tracking/lock says where it runs, when it last sent,
// how far behind it is and what it could not deliver. Only the lock's holder writes it (atomically);
// `status`, `list` and `cancel` read it, with the lock, as untrusted files (trackerStatus, stopTracker).
import {
  processStart,
  readHolder,
  readJson,
  TRACKER,
  TrackLaunchError,
  trackingPaths,
  writeJsonAsync,
} from '../../core';
import type { Counts } from './delivery';
import { heartbeatAgeMs, isStale, LOCK_DEAD_AFTER_MS, LOCK_HEARTBEAT_MS, me, parseHolder } from './lock';

/** Where an ingester runs: a detached follower on the login node (login), the tracker inside the
 *  allocation (job), `submit --follow` or `ingest --follow` at a terminal (follow), a one-off
 *  `ingest`/`sync` (manual), the periodic `ingest --all` (cron). */
export const PLACEMENTS = ['login', 'job', 'follow', 'manual', 'cron'] as const;
export type Placement = (typeof PLACEMENTS)[number];

export interface TrackerRecord {
  placement: Placement;
  host: string;
  pid: number;
  /** The process's start time, as in the lock. */
  start?: string;
  boot_id?: string;
  /** Epoch seconds: when it took the lock, when it wrote this, when points last reached the server. */
  started_at: number;
  updated_at: number;
  last_sent_at?: number;
  points_pending: number;
  /** What could not be delivered, counted over every ingest of this run dir to this server. */
  undelivered: Counts;
  lag_ms: number;
}

/** What an ingest cycle tells the record. */
export interface TrackerUpdate {
  pending: number;
  lagMs: number;
  undelivered?: Counts;
  /** Epoch ms of the last time points reached the server in this ingest. */
  lastSentAt?: number;
}

const now = () => Math.round(Date.now()) / 1000;
const zero = (): Counts => ({ points: 0, params: 0, tags: 0, files: 0 });

/** The lock holder's record, rewritten after a cycle when it changed (else at most every heartbeat). */
export class TrackerRecorder {
  private written = 0;
  private last = '';

  /** What the ingest's summary should say about the record (a damaged one it replaced). */
  readonly warnings: string[] = [];

  private constructor(
    private readonly runDir: string,
    private rec: TrackerRecord,
  ) {}

  /** Write the first record, by the ingester that has just taken the lock. A damaged record of an
   *  earlier holder does not stop the ingest: the lock is ours, so ours replaces it, and it is said. */
  static async start(runDir: string, placement: Placement): Promise<TrackerRecorder> {
    const self = me();
    let before: TrackerRecord | undefined;
    let damaged: string | undefined;
    try {
      before = readTracker(runDir); // when points last arrived, whoever sent them
    } catch (err) {
      if (!(err instanceof TrackLaunchError && err.code === 'RUN_DIR')) throw err;
      damaged = `${err.message}; replaced by this ingest's record`;
    }
    const t = now();
    const rec: TrackerRecord = {
      placement,
      ...self,
      started_at: t,
      updated_at: t,
      ...(before?.last_sent_at === undefined ? {} : { last_sent_at: before.last_sent_at }),
      points_pending: 0,
      undelivered: zero(),
      lag_ms: 0,
    };
    const r = new TrackerRecorder(runDir, rec);
    if (damaged) r.warnings.push(damaged);
    await r.write(t); // written at the time it took the lock
    return r;
  }

  async update(u: TrackerUpdate): Promise<void> {
    const rec: TrackerRecord = {
      ...this.rec,
      points_pending: u.pending,
      undelivered: u.undelivered ?? zero(),
      lag_ms: Math.round(u.lagMs),
      ...(u.lastSentAt === undefined ? {} : { last_sent_at: u.lastSentAt / 1000 }),
    };
    this.rec = rec;
    const changed = JSON.stringify({ ...rec, updated_at: 0 }) !== this.last;
    if (changed || Date.now() - this.written >= LOCK_HEARTBEAT_MS) await this.write();
  }

  private async write(at = now()): Promise<void> {
    this.rec = { ...this.rec, updated_at: at };
    this.written = Date.now();
    this.last = JSON.stringify({ ...this.rec, updated_at: 0 });
    await writeJsonAsync(this.runDir, trackingPaths(this.runDir).tracker, this.rec);
  }
}

/** tracker.json; undefined when missing or not JSON (a file written by rename may be seen
 *  half-written on shared storage); one not of its schema (core's TRACKER) is a RUN_DIR error. */
export const readTracker = (runDir: string): TrackerRecord | undefined =>
  readJson<TrackerRecord>(runDir, trackingPaths(runDir).tracker, { partialIsMissing: true, schema: TRACKER });

export interface TrackerStatus {
  /** 'unknown' when tracker.json does not describe the lock's holder (missing, an older holder's,
   *  half-written); one not of its schema is a RUN_DIR error. */
  placement: Placement | 'unknown';
  /** 'unknown' and 0 when the lock does not name a process. */
  host: string;
  pid: number;
  /** Same host: the process with the recorded start time runs. Another host: 'unknown' while its
   *  heartbeat is fresh (under LOCK_DEAD_AFTER_MS), false after. */
  alive: boolean | 'unknown';
  /** Seconds since the holder last touched the lock. */
  heartbeatAgeS: number;
  /** Epoch seconds. */
  lastSentAt?: number;
  pointsPending?: number;
  undelivered?: Counts;
  lagMs?: number;
  /** Epoch seconds. */
  updatedAt?: number;
}

/** Who holds tracking/lock and what its tracker.json says; undefined when no lock is held. */
export function trackerStatus(runDir: string): TrackerStatus | undefined {
  return readStatus(runDir)?.status;
}

function readStatus(runDir: string) {
  const lock = trackingPaths(runDir).lock;
  const raw = readHolder(runDir, lock);
  const age = raw === '' ? undefined : heartbeatAgeMs(runDir, lock);
  if (age === undefined) return undefined; // none, or released meanwhile
  const holder = parseHolder(raw);
  const self = me();
  const alive: boolean | 'unknown' = !holder
    ? 'unknown'
    : holder.host === self.host
      ? !isStale(holder, self)
      : age < LOCK_DEAD_AFTER_MS
        ? 'unknown'
        : false;
  const status: TrackerStatus = {
    placement: 'unknown',
    host: holder?.host ?? 'unknown',
    pid: holder?.pid ?? 0,
    alive,
    heartbeatAgeS: Math.round(age / 1000),
  };
  const rec = holder && readTracker(runDir);
  if (rec && rec.host === holder.host && rec.pid === holder.pid && rec.start === holder.start) {
    if (rec.placement) status.placement = rec.placement;
    if (rec.last_sent_at !== undefined) status.lastSentAt = rec.last_sent_at;
    if (rec.points_pending !== undefined) status.pointsPending = rec.points_pending;
    if (rec.undelivered) status.undelivered = rec.undelivered;
    if (rec.lag_ms !== undefined) status.lagMs = rec.lag_ms;
    if (rec.updated_at !== undefined) status.updatedAt = rec.updated_at;
  }
  return { status, holder, self };
}

export interface StopResult {
  signalled: boolean;
  holder?: TrackerStatus;
  /** Why nothing was signalled. */
  why?: string;
}

/** Signal the lock's holder: only when it runs on this host, this boot, and its pid is still the
 *  process with the start time the lock records (never a reused pid). */
export function stopTracker(runDir: string, signal: NodeJS.Signals = 'SIGTERM'): StopResult {
  const found = readStatus(runDir);
  if (!found) return { signalled: false, why: 'no ingest holds the lock' };
  const { status, holder: h, self } = found;
  const no = (why: string): StopResult => ({ signalled: false, holder: status, why });
  if (!h) return no('the lock does not name a process');
  if (h.host !== self.host) return no(`it runs on ${h.host} (pid ${h.pid}): stop it there`);
  if (h.pid === process.pid) return no('this process holds the lock');
  if (h.boot_id !== undefined && self.boot_id !== undefined && h.boot_id !== self.boot_id)
    return no(`pid ${h.pid} ran before this host rebooted`);
  if (h.start === undefined)
    return no(`the lock does not record when pid ${h.pid} started: it cannot be told from a reused pid`);
  if (processStart(h.pid) !== h.start) return no(`pid ${h.pid} has ended (or is another process now)`);
  try {
    process.kill(h.pid, signal);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return no(`pid ${h.pid} has ended`);
    if (code === 'EPERM') return no(`not permitted to signal pid ${h.pid} (another user's process)`);
    throw err;
  }
  return { signalled: true, holder: status };
}
