// How many requests a sync keeps in flight to a server: 4 where the server answers requests side by
// side (PostgreSQL behind 4 workers: 1.5-1.9x the rate of 1), 1 where it does one at a time (sqlite
// behind one worker: 4 in flight were about 10 % slower, the requests contending for one process and
// one database lock; BENCHMARKS.md). MLflow does not say what it runs, so it is measured (probe.ts):
// how much faster the same cheap read is answered at HIGH in flight than one at a time. The measure
// is kept per user and server (pace-store.ts) for MAX_AGE_MS.
export const LOW = 1;
export const HIGH = 4;
/** HIGH in flight when they answered at least this many times as fast as 1 (probe.ts). Measured on
 *  this 2-core host: one sqlite worker 0.97-1.37 in a single round (24 tries), PostgreSQL behind 4
 *  workers 1.58-2.28; the probe as shipped, 20 tries each: 0.94-1.24 and 1.43-2.10, about a third
 *  taking 3 rounds. Between, nearer sqlite's: 4 in flight to a one-worker server lose about 10 %,
 *  1 to a four-worker one about 40 %. While another program took a core, PostgreSQL measured
 *  1.05-1.17: the parallelism was not there to use. sqlite behind 4 workers measured 1.46-1.60 (by
 *  totals), and 4 in flight wrote points there 1.15-1.45x as fast as 1. */
export const THRESHOLD = 1.35;
/** A measure older than this is taken again: a server can be moved or given workers. */
export const MAX_AGE_MS = 24 * 3600 * 1000;

export interface Pace {
  version: 1;
  /** Requests in flight. */
  limit: typeof LOW | typeof HIGH;
  /** How many times as fast HIGH reads in flight were answered as one at a time (probe.ts). */
  ratio: number;
  /** When it was measured (ms since the epoch). */
  measured_at: number;
}

/** The pace a measured ratio gives. */
export function paceOf(ratio: number, now: number): Pace {
  return { version: 1, limit: ratio >= THRESHOLD ? HIGH : LOW, ratio, measured_at: now };
}

/** A kept record still to be used at `now` (not older than MAX_AGE_MS, nor from the future). */
export function isFresh(p: Pace, now: number): boolean {
  return p.measured_at <= now && now - p.measured_at < MAX_AGE_MS;
}

/** A record read from disk, or undefined if it is not one (the file is shared-looking user state). */
export function parsePace(x: unknown): Pace | undefined {
  if (typeof x !== 'object' || x === null) return undefined;
  const p = x as Record<string, unknown>;
  if (p.version !== 1 || (p.limit !== LOW && p.limit !== HIGH)) return undefined;
  if (typeof p.ratio !== 'number' || !Number.isFinite(p.ratio) || p.ratio <= 0) return undefined;
  if (typeof p.measured_at !== 'number' || !Number.isFinite(p.measured_at)) return undefined;
  // the limit follows from the ratio: a record saying otherwise was not written by paceOf
  if (paceOf(p.ratio, p.measured_at).limit !== p.limit) return undefined;
  return { version: 1, limit: p.limit, ratio: p.ratio, measured_at: p.measured_at };
}

/** For the summary: "1 request in flight (4 in flight answered 1.04x as fast as 1, measured <iso>)". */
export function describePace(p: Pace): string {
  const n = p.limit === 1 ? '1 request' : `${p.limit} requests`;
  return `${n} in flight (${HIGH} in flight answered ${p.ratio.toFixed(2)}x as fast as 1, measured ${new Date(p.measured_at).toISOString()})`;
}
