// The probe of a server's parallelism (tracking-plugin/ingest/probe.ts) against simulated servers
// in simulated time: W workers of service time S behind a queue (first come, first served), each
// answer reaching the client N after it was served (time on the wire and in the client, which
// overlaps with other requests' service). The expected ratio comes from the model, not the probe:
// with one worker, HIGH in flight answer min(HIGH / (N + S), 1 / S) per unit of time against
// 1 / (N + S) alone, so HIGH x (N + S) / max(N + S, HIGH x S); with W >= HIGH workers, HIGH.
import { HIGH, paceOf, THRESHOLD, LOW } from '../../../tracking-plugin/ingest/pace';
import {
  ATTEMPTS,
  CLEAR,
  measureParallelism,
  PHASE,
  probeRatio,
  ROUNDS,
} from '../../../tracking-plugin/ingest/probe';

/** A server and a clock in simulated time: a read's answer is scheduled when it arrives, and the
 *  clock jumps to the next answer once the client has nothing left to do (setImmediate runs after
 *  every promise the last answer set going). */
function simulated(workers: number, service: number, wireMs: number) {
  let wire = wireMs;
  let clock = 0;
  let free = Array.from({ length: workers }, () => 0);
  const due: Array<{ at: number; resolve: () => void }> = [];
  let reads = 0;
  let ticking = false;
  const tick = () => {
    ticking = false;
    due.sort((a, b) => a.at - b.at);
    const next = due.shift();
    if (!next) return;
    clock = next.at;
    next.resolve();
    schedule();
  };
  const schedule = () => {
    if (!ticking) {
      ticking = true;
      setImmediate(tick);
    }
  };
  const read = () =>
    new Promise<void>((resolve) => {
      reads++;
      free.sort((a, b) => a - b);
      const start = Math.max(clock, free[0]);
      free[0] = start + service;
      due.push({ at: start + service + wire, resolve });
      schedule();
    });
  /** New connections, landing on `n` of the server's workers. */
  const place = (n: number) => {
    free = Array.from({ length: n }, () => clock);
  };
  /** Time on the wire from now on. */
  const setWire = (n: number) => {
    wire = n;
  };
  return { read, now: () => clock, reads: () => reads, place, wire: setWire };
}

const oneRound = HIGH + 4 * PHASE;
const expectedOneWorker = (s: number, n: number) => (HIGH * (n + s)) / Math.max(n + s, HIGH * s);

test.each([
  ['one worker, nothing on the wire', 1, 10, 0],
  ['one worker, a little on the wire', 1, 10, 0.5],
  ['two workers', 2, 10, 0],
  [`${HIGH} workers`, HIGH, 10, 0],
  [`${HIGH} workers, much on the wire`, HIGH, 10, 25],
  ['eight workers', 8, 10, 3],
])('%s: the ratio of the model, decided in one round', async (_name, workers, s, n) => {
  const sim = simulated(workers, s, n);
  const r = await probeRatio(sim.read, sim.now);
  const expected = workers === 1 ? expectedOneWorker(s, n) : Math.min(workers, HIGH);
  expect(r.ratio).toBeCloseTo(expected, 1);
  expect(r.reads).toBe(oneRound);
  expect(sim.reads()).toBe(r.reads);
  expect(paceOf(r.ratio, 0).limit).toBe(expected >= THRESHOLD ? HIGH : LOW);
});

test.each([
  ['just under the threshold', 0.3],
  ['just over it', 0.45],
])('a first round near the threshold (%s): ROUNDS rounds, pooled', async (_name, wireOverService) => {
  const s = 10;
  const expected = expectedOneWorker(s, wireOverService * s);
  expect(expected).toBeLessThan(THRESHOLD * CLEAR); // the model puts it in the band that is not clear
  expect(expected).toBeGreaterThan(THRESHOLD / CLEAR);
  const sim = simulated(1, s, wireOverService * s);
  const r = await probeRatio(sim.read, sim.now);
  expect(r.reads).toBe(HIGH + ROUNDS * 4 * PHASE);
  expect(sim.reads()).toBe(r.reads);
  expect(r.ratio).toBeCloseTo(expected, 1);
  expect(paceOf(r.ratio, 0).limit).toBe(expected >= THRESHOLD ? HIGH : LOW);
});

test('a read that fails ends the probe with its error; no read starts after it', async () => {
  let n = 0;
  const read = async () => {
    const k = ++n;
    await new Promise((r) => setImmediate(r));
    if (k === HIGH + PHASE + 6) throw new Error('HTTP 503 (test)'); // in the first phase at HIGH
  };
  await expect(probeRatio(read)).rejects.toThrow('HTTP 503 (test)');
  await new Promise((r) => setTimeout(r, 20));
  // at most the HIGH - 1 reads in flight beside it, which started before it failed
  expect(n).toBeLessThanOrEqual(HIGH + PHASE + 6 + HIGH - 1);
});

test('connections that all landed on one of 4 workers are tried again on new ones; the best counts', async () => {
  const sim = simulated(1, 10, 0); // the first connections all on one worker
  let reconnects = 0;
  const r = await measureParallelism(
    sim.read,
    () => {
      reconnects++;
      sim.place(HIGH); // the new ones on four
    },
    sim.now,
  );
  expect(reconnects).toBe(1);
  expect(r.attempts).toBe(2);
  expect(r.reads).toBe(2 * oneRound);
  expect(r.ratio).toBeCloseTo(HIGH, 1);
  expect(paceOf(r.ratio, 0).limit).toBe(HIGH);
});

test('a server with one worker is probed ATTEMPTS times on new connections and stays at 1', async () => {
  const sim = simulated(1, 10, 0);
  let reconnects = 0;
  const r = await measureParallelism(sim.read, () => void reconnects++, sim.now);
  expect(r.attempts).toBe(ATTEMPTS);
  expect(reconnects).toBe(ATTEMPTS - 1);
  expect(r.reads).toBe(ATTEMPTS * oneRound);
  expect(sim.reads()).toBe(r.reads);
  expect(r.ratio).toBeCloseTo(1, 1);
  expect(paceOf(r.ratio, 0).limit).toBe(LOW);
});

test('a server found parallel at once is not probed again', async () => {
  const sim = simulated(HIGH, 10, 0);
  const r = await measureParallelism(
    sim.read,
    () => {
      throw new Error('no reconnect expected');
    },
    sim.now,
  );
  expect([r.attempts, r.reads]).toEqual([1, oneRound]);
});

test('a retry that is not clearly parallel does not count: the first try decides', async () => {
  // one worker, time on the wire changing between tries: 1.1, then 1.4 (over THRESHOLD, under
  // THRESHOLD x CLEAR), then 1.1 by the model
  const s = 10;
  const wires = [0.1 * s, 0.4 * s, 0.1 * s];
  const ratios = wires.map((n) => expectedOneWorker(s, n));
  expect(ratios[1]).toBeGreaterThan(THRESHOLD);
  expect(ratios[1]).toBeLessThan(THRESHOLD * CLEAR);
  const sim = simulated(1, s, wires[0]);
  let tries = 1;
  const r = await measureParallelism(sim.read, () => sim.wire(wires[tries++]), sim.now);
  expect(r.attempts).toBe(ATTEMPTS);
  expect(tries).toBe(ATTEMPTS);
  expect(r.ratio).toBeCloseTo(ratios[0], 1);
  expect(paceOf(r.ratio, 0).limit).toBe(LOW);
});
