// The pace a sync keeps to one MLflow server (tracking-plugin/ingest/pace.ts): probes first, then
// the number whose measured rate is higher, probes again now and then; the record read back is
// checked like any input.
import {
  emptyPace,
  GAIN,
  HIGH,
  LOW,
  parsePace,
  planPace,
  PROBE_MIN_BYTES,
  PROBES,
  recordSync,
  REPROBE_EVERY,
  type Pace,
} from '../../../tracking-plugin/ingest/pace';

const big = PROBE_MIN_BYTES;
const withRatios = (ratios: number[], syncs = ratios.length): Pace =>
  ratios.reduce((p, r) => recordSync(p, r), { ...emptyPace(), syncs: syncs - ratios.length });

test('a new server is probed, the two orders taking turns, until PROBES probes are in', () => {
  let pace = emptyPace();
  const orders: string[] = [];
  for (let i = 0; i < PROBES; i++) {
    const plan = planPace(pace, big);
    expect(plan.kind).toBe('probe');
    if (plan.kind === 'probe') orders.push(`${plan.first}>${plan.second}`);
    pace = recordSync(pace, 2);
  }
  expect(orders).toEqual(
    Array.from({ length: PROBES }, (_, i) => (i % 2 ? `${LOW}>${HIGH}` : `${HIGH}>${LOW}`)),
  );
  expect(planPace(pace, big)).toMatchObject({ kind: 'fixed', limit: HIGH });
});

test('a sync too small to probe keeps the default until the server is known', () => {
  expect(planPace(emptyPace(), big - 1)).toMatchObject({ kind: 'fixed', limit: HIGH });
  const known = withRatios([0.8, 0.9, 0.85, 0.8]);
  expect(planPace(known, 10)).toMatchObject({ kind: 'fixed', limit: LOW });
});

test('the decision is HIGH exactly when the geometric mean of the probes reaches GAIN', () => {
  let seed = 7;
  const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < 500; i++) {
    const n = PROBES + Math.floor(rand() * 5);
    const ratios = Array.from({ length: n }, () => 0.5 + rand() * 1.5);
    const kept = ratios.slice(-8);
    // computed here as a product, not as the module's mean of logarithms
    const geo = kept.reduce((a, b) => a * b, 1) ** (1 / kept.length);
    const pace = withRatios(ratios, n + 1); // syncs + 1 is not a re-probe
    const plan = planPace(pace, 0);
    if (Math.abs(geo - GAIN) < 1e-9) continue;
    expect(plan).toMatchObject({ kind: 'fixed', limit: geo >= GAIN ? HIGH : LOW });
  }
});

test('every REPROBE_EVERY-th sync probes again', () => {
  const due = withRatios([0.8, 0.8, 0.8, 0.8], REPROBE_EVERY - 1);
  expect(planPace(due, big).kind).toBe('probe');
  expect(planPace(recordSync(due), big)).toMatchObject({ kind: 'fixed', limit: LOW });
});

test('the record keeps the newest 8 probes and only usable ratios', () => {
  let pace = emptyPace();
  for (const r of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) pace = recordSync(pace, r);
  expect(pace.samples.map((x) => Math.round(Math.exp(x)))).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
  for (const r of [0, -1, NaN, Infinity, undefined]) {
    const next = recordSync(pace, r);
    expect(next.samples).toEqual(pace.samples);
    expect(next.syncs).toBe(pace.syncs + 1);
  }
});

test('a record read back is taken only if it is one', () => {
  const good = withRatios([0.9, 1.2]);
  expect(parsePace(JSON.parse(JSON.stringify(good)))).toEqual(good);
  for (const bad of [
    null,
    'x',
    { ...good, version: 2 },
    { ...good, syncs: -1 },
    { ...good, syncs: 1.5 },
    { ...good, samples: 'x' },
    { ...good, samples: [1, 'a'] },
    { ...good, samples: [1e308] },
    { ...good, samples: Array(9).fill(0.1) },
  ])
    expect(parsePace(bad)).toBeUndefined();
});
