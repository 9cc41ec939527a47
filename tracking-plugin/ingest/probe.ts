// Measures whether a server answers requests side by side (pace.ts). The same cheap read, PHASE
// times one after another and PHASE times at HIGH in flight, in the order 1, HIGH, HIGH, 1 (a server
// warming up or slowing down favours neither). By Little's law, HIGH in flight deliver
// HIGH / (their latency) answers per unit of time against 1 / (the latency alone): the ratio is
// HIGH x median latency alone / median latency at HIGH, about 1 for a server answering one at a time
// and up to HIGH for one answering HIGH side by side. Medians, since one stall of this shared host
// moved totals by 2x. A clear first round decides; one near THRESHOLD takes ROUNDS, pooled.
// A read, not a write: it leaves nothing on the server, and what sets the pace is whether the server
// has more than one process to answer with (reads and writes of points gained alike here: pace.ts).
// Which of a server's workers a connection lands on is the server's choice: connections that all
// landed on one worker look like a server with one, so a probe that finds no parallelism is tried
// again on new connections, up to ATTEMPTS. A retry counts only if clearly parallel (at least
// THRESHOLD x CLEAR): the best of several tries of a one-worker server reached 1.38 here, while
// four workers on spread connections measured 1.43-2.28 (pace.ts).
import { HIGH, THRESHOLD } from './pace';

export const PHASE = 16;
export const ROUNDS = 3;
/** A first round's ratio this far from THRESHOLD (a factor either way) decides alone. */
export const CLEAR = 1.15;
/** Probes on new connections before a server is taken to answer one request at a time. */
export const ATTEMPTS = 3;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The ratio (above) and the reads it took. Throws what a read threw. */
export async function probeRatio(
  read: () => Promise<unknown>,
  now: () => number = () => performance.now(),
): Promise<{ ratio: number; reads: number }> {
  const alone: number[] = [];
  const side: number[] = [];
  let reads = 0;
  const timed = async (into: number[]) => {
    const t0 = now();
    reads++;
    await read();
    into.push(now() - t0);
  };
  let failed = false; // the reads beside a failed one start no more
  const phase = async (inFlight: number, into: number[]) => {
    let left = PHASE;
    const worker = async () => {
      while (!failed && left-- > 0)
        await timed(into).catch((e: unknown) => {
          failed = true;
          throw e;
        });
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
  };
  // untimed: the connections the phases at HIGH reuse are opened here
  await Promise.all(Array.from({ length: HIGH }, () => timed([])));
  for (let round = 1; ; round++) {
    await phase(1, alone);
    await phase(HIGH, side);
    await phase(HIGH, side);
    await phase(1, alone);
    const ratio = (HIGH * median(alone)) / median(side);
    const clear = ratio >= THRESHOLD * CLEAR || ratio <= THRESHOLD / CLEAR;
    if ((round === 1 && clear) || round === ROUNDS) return { ratio, reads };
  }
}

/** The first probe's ratio if it reaches THRESHOLD; else, with `reconnect` (new connections)
 *  before each, up to ATTEMPTS - 1 more, the first that is clearly parallel; else the first's. */
export async function measureParallelism(
  read: () => Promise<unknown>,
  reconnect: () => void,
  now?: () => number,
): Promise<{ ratio: number; reads: number; attempts: number }> {
  const first = await probeRatio(read, now);
  let reads = first.reads;
  if (first.ratio >= THRESHOLD) return { ratio: first.ratio, reads, attempts: 1 };
  for (let attempt = 2; attempt <= ATTEMPTS; attempt++) {
    reconnect();
    const r = await probeRatio(read, now);
    reads += r.reads;
    if (r.ratio >= THRESHOLD * CLEAR) return { ratio: r.ratio, reads, attempts: attempt };
  }
  return { ratio: first.ratio, reads, attempts: ATTEMPTS };
}
