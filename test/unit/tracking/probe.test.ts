// A probe (tracking-plugin/ingest/probe.ts) against two simulated servers with real timers: one
// that does one request at a time (sqlite's one worker) and one that does four at once. Each part
// is sent as the pump sends it; the servers count what is in flight.
import { limiter } from '../../../tracking-plugin/ingest/limiter';
import { Probe } from '../../../tracking-plugin/ingest/probe';
import { HIGH, LOW } from '../../../tracking-plugin/ingest/pace';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A server taking `ms` per request, `workers` at a time; it logs each request's start and end. */
function server(workers: number, ms: number) {
  let busy = 0;
  const queue: Array<() => void> = [];
  const log: Array<{ part: number; start: number; end: number }> = [];
  let inFlight = 0;
  let peak = 0;
  const handle = async (part: number) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    if (busy >= workers) await new Promise<void>((r) => queue.push(r));
    busy++;
    const start = performance.now();
    await sleep(ms);
    log.push({ part, start, end: performance.now() });
    busy--;
    queue.shift()?.();
    inFlight--;
  };
  return { handle, log, peak: () => peak, reset: () => (peak = 0) };
}

async function probeRun(workers: number, first: number, second: number, parts = 12, fail?: number) {
  const srv = server(workers, 15);
  const gate = limiter(HIGH);
  const probe = new Probe(parts * 1000, first, second, gate);
  const peaks: number[] = [];
  const sends = Array.from({ length: parts }, (_, i) =>
    probe.send(1000, (g) =>
      g(async () => {
        await srv.handle(i);
        if (i === fail) throw new Error('refused');
        if (i === parts / 2 - 1 || i === parts - 1) peaks.push(srv.peak());
        if (i === parts / 2 - 1) srv.reset();
      }),
    ),
  );
  await Promise.allSettled(sends);
  return { ratio: probe.ratio(HIGH), log: srv.log, peaks };
}

test('a server that does one request at a time: 4 in flight is no faster than 1', async () => {
  for (const [first, second] of [
    [HIGH, LOW],
    [LOW, HIGH],
  ]) {
    const { ratio } = await probeRun(1, first, second);
    expect(ratio).toBeGreaterThan(0.6);
    expect(ratio).toBeLessThan(1.4);
  }
});

test('a server with 4 workers: 4 in flight is several times faster than 1', async () => {
  for (const [first, second] of [
    [HIGH, LOW],
    [LOW, HIGH],
  ]) {
    const { ratio } = await probeRun(4, first, second);
    expect(ratio).toBeGreaterThan(2);
  }
});

test('each half keeps its own number in flight, and the second starts after the first is answered', async () => {
  const { log, peaks } = await probeRun(4, LOW, HIGH);
  const firstHalf = log.filter((x) => x.part < 6);
  const secondHalf = log.filter((x) => x.part >= 6);
  expect(Math.min(...secondHalf.map((x) => x.start))).toBeGreaterThanOrEqual(
    Math.max(...firstHalf.map((x) => x.end)),
  );
  expect(peaks).toEqual([LOW, HIGH]);
});

test('a failed part: the probe does not tell', async () => {
  const { ratio } = await probeRun(4, HIGH, LOW, 12, 3);
  expect(ratio).toBeUndefined();
});

test('a limiter resized up lets the waiting calls go at once; resized down, holds new ones', async () => {
  const gate = limiter(1);
  let active = 0;
  let peak = 0;
  const task = async () => {
    active++;
    peak = Math.max(peak, active);
    await sleep(10);
    active--;
  };
  const first = Array.from({ length: 4 }, () => gate(task));
  gate.resize(4);
  await Promise.all(first);
  expect(peak).toBe(4);
  peak = 0;
  gate.resize(2);
  await Promise.all(Array.from({ length: 6 }, () => gate(task)));
  expect(peak).toBe(2);
});
