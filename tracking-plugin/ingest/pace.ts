// How many requests a sync keeps in flight to one MLflow server: learned per server, since MLflow
// does not say what it runs on. A server whose store serialises writes (sqlite, one worker) does
// best with one request at a time and loses 6-24 % at four; PostgreSQL behind 4 workers gains
// 1.5-1.7x from four (BENCHMARKS.md). A sync with enough points to tell is a probe: it sends half
// of its bytes at one number and the rest at the other (the order alternating from probe to
// probe), and records the ratio of the two rates. Once PROBES probes are in, the mean ratio picks
// the number; every REPROBE_EVERY-th sync probes again, so a server that changes is followed.
// Pure: the record is kept by pace-store.ts, the probe measured by probe.ts.

/** The two numbers of requests in flight a sync chooses from. */
export const LOW = 1;
export const HIGH = 4;
/** Probes before the record decides; samples kept (the newest). */
export const PROBES = 4;
const KEEP = 8;
/** HIGH is chosen when its rate is at least this many times LOW's (geometric mean of the probes):
 *  the two servers measured here are at 0.81-0.94 (sqlite) and 1.48-1.72 (PostgreSQL). */
export const GAIN = 1.15;
export const REPROBE_EVERY = 25;
/** Spool bytes a sync must send to probe: about 4 requests of 1,000 points each (2 per half). */
export const PROBE_MIN_BYTES = 256 * 1024;

/** What is kept per server: ln(rate at HIGH / rate at LOW) of each probe, oldest first, and the
 *  number of syncs that sent points. */
export interface Pace {
  version: 1;
  samples: number[];
  syncs: number;
}

export type PacePlan =
  { kind: 'fixed'; limit: number; why: string } | { kind: 'probe'; first: number; second: number };

export const emptyPace = (): Pace => ({ version: 1, samples: [], syncs: 0 });

const meanGain = (p: Pace) => Math.exp(p.samples.reduce((a, b) => a + b, 0) / p.samples.length);

/** The number of requests in flight a sync of `bytes` spool bytes uses, or a probe. */
export function planPace(pace: Pace, bytes: number): PacePlan {
  const decided = pace.samples.length >= PROBES;
  const due = !decided || (pace.syncs + 1) % REPROBE_EVERY === 0;
  if (due && bytes >= PROBE_MIN_BYTES) {
    // alternate which number goes first: the first half also carries the runs' creates
    return pace.samples.length % 2 === 0
      ? { kind: 'probe', first: HIGH, second: LOW }
      : { kind: 'probe', first: LOW, second: HIGH };
  }
  if (!decided)
    return { kind: 'fixed', limit: HIGH, why: `${pace.samples.length} of ${PROBES} probes so far` };
  const gain = meanGain(pace);
  return {
    kind: 'fixed',
    limit: gain >= GAIN ? HIGH : LOW,
    why: `${HIGH} in flight measured ${gain.toFixed(2)}x the rate of ${LOW}`,
  };
}

/** The record after a sync that sent points; `ratio`: its probe's rate at HIGH / rate at LOW. */
export function recordSync(pace: Pace, ratio?: number): Pace {
  const samples =
    ratio !== undefined && Number.isFinite(ratio) && ratio > 0
      ? [...pace.samples, Math.log(ratio)].slice(-KEEP)
      : pace.samples;
  return { version: 1, samples, syncs: pace.syncs + 1 };
}

/** A record read back, or undefined if it is not one (then it is started again). */
export function parsePace(value: unknown): Pace | undefined {
  const v = value as Partial<Pace> | null;
  if (!v || typeof v !== 'object' || v.version !== 1) return undefined;
  if (!Number.isSafeInteger(v.syncs) || (v.syncs as number) < 0) return undefined;
  if (!Array.isArray(v.samples) || v.samples.length > KEEP) return undefined;
  if (!v.samples.every((x) => typeof x === 'number' && Number.isFinite(x) && Math.abs(x) < 10))
    return undefined;
  return { version: 1, samples: [...v.samples], syncs: v.syncs as number };
}
