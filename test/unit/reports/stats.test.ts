import fc from 'fast-check';
import { decimate, lttbIndices } from '../../../reports/stats/lttb';
import { crossRankMean } from '../../../reports/stats/mean';
import { decadesSpanned, useLogScale } from '../../../reports/stats/scale';
import { quantile, quantiles, slowest, stepSeconds, stragglerStats } from '../../../reports/stats/stragglers';
import type { MetricSeries } from '../../../reports/model';

const series = (rank: number, values: number[], times: number[], host = `h${rank}`): MetricSeries => ({
  rank,
  host,
  key: 'loss',
  steps: Float64Array.from(values, (_, i) => i * 10),
  values: Float64Array.from(values),
  times: Float64Array.from(times),
});

describe('lttbIndices', () => {
  it('keeps first and last, returns `target` ascending indices', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { minLength: 3, maxLength: 400 }),
        fc.integer({ min: 3, max: 500 }),
        (ys, target) => {
          const xs = ys.map((_, i) => i);
          const idx = lttbIndices(xs, ys, target);
          expect(idx.length).toBe(Math.min(ys.length, target));
          expect(idx[0]).toBe(0);
          expect(idx[idx.length - 1]).toBe(ys.length - 1);
          for (let i = 1; i < idx.length; i++) expect(idx[i]).toBeGreaterThan(idx[i - 1]);
        },
      ),
    );
  });

  it('keeps a single spike that a stride would drop', () => {
    const ys = Array.from({ length: 10_000 }, (_, i) => (i === 5_003 ? 100 : 0));
    const idx = lttbIndices(
      ys.map((_, i) => i),
      ys,
      100,
    );
    expect(Array.from(idx)).toContain(5_003);
  });

  it('decimate drops non-finite values and yields {x, y} points', () => {
    expect(decimate([0, 1, 2, 3], [1, NaN, Infinity, 4], 10)).toEqual([
      { x: 0, y: 1 },
      { x: 3, y: 4 },
    ]);
  });
});

describe('log-scale decision', () => {
  it('is log for a loss falling two decades, linear otherwise', () => {
    expect(useLogScale([Float64Array.from([0.7, 0.05, 0.004])])).toBe(true);
    expect(useLogScale([Float64Array.from([0.7, 0.05, 0.01])])).toBe(false); // 1.85 decades
    expect(useLogScale([Float64Array.from([1, 0.001]), Float64Array.from([0])])).toBe(false); // zero cannot be shown
    expect(useLogScale([Float64Array.from([-1, 100])])).toBe(false);
    expect(useLogScale([Float64Array.from([NaN, 1, 1000])])).toBe(true); // NaN ignored
    expect(useLogScale([])).toBe(false);
  });

  it('does not change when all values are scaled', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 1e-6, max: 1e6, noNaN: true }), { minLength: 2 }),
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        (vs, k) => {
          const a = decadesSpanned([Float64Array.from(vs)]);
          const b = decadesSpanned([Float64Array.from(vs, (v) => v * k)]);
          expect(b).toBeCloseTo(a, 6);
        },
      ),
    );
  });
});

describe('crossRankMean', () => {
  it('averages the ranks that logged each step', () => {
    const a = series(0, [1, 2, 3], [1000, 2000, 3000]);
    const b = series(1, [3, 4], [1000, 3000]);
    const m = crossRankMean([a, b]);
    expect(Array.from(m.steps)).toEqual([0, 10, 20]);
    expect(Array.from(m.values)).toEqual([2, 3, 3]);
    expect(Array.from(m.times)).toEqual([1000, 2500, 3000]);
  });
});

/** The definition, as a Map keyed by step (what crossRankMean computed before it used columns). */
function referenceMean(series: MetricSeries[]) {
  const sum = new Map<number, { v: number; t: number; n: number; nt: number }>();
  for (const s of series)
    for (let i = 0; i < s.steps.length; i++) {
      if (!Number.isFinite(s.values[i])) continue;
      const e = sum.get(s.steps[i]) ?? { v: 0, t: 0, n: 0, nt: 0 };
      e.v += s.values[i];
      e.n++;
      if (Number.isFinite(s.times[i])) {
        e.t += s.times[i];
        e.nt++;
      }
      sum.set(s.steps[i], e);
    }
  const steps = Float64Array.from(sum.keys()).sort();
  return {
    steps,
    values: steps.map((st) => sum.get(st)!.v / sum.get(st)!.n),
    times: steps.map((st) => (sum.get(st)!.nt ? sum.get(st)!.t / sum.get(st)!.nt : NaN)),
  };
}

describe('crossRankMean against its definition', () => {
  const value = fc.oneof(fc.double({ min: -10, max: 10, noNaN: true }), fc.constantFrom(NaN, Infinity));
  const step = fc.oneof(fc.integer({ min: -3, max: 40 }), fc.constantFrom(-0, 2.5, NaN));
  const rank = fc
    .array(fc.tuple(step, value, fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constant(NaN))), {
      maxLength: 60,
    })
    .chain((points) =>
      fc.boolean().map((sorted) => {
        const ps = sorted ? [...points].sort((a, b) => a[0] - b[0]) : points;
        return {
          rank: 0,
          key: 'loss',
          steps: Float64Array.from(ps, (p) => p[0]),
          values: Float64Array.from(ps, (p) => p[1]),
          times: Float64Array.from(ps, (p) => p[2]),
        };
      }),
    );

  it('gives the same bits: steps in any order, repeated, missing, NaN values and times', () => {
    fc.assert(
      fc.property(fc.array(rank, { maxLength: 6 }), (series) => {
        const got = crossRankMean(series);
        const want = referenceMean(series);
        expect(Array.from(got.steps)).toEqual(Array.from(want.steps));
        expect(Array.from(got.values)).toEqual(Array.from(want.values));
        expect(Array.from(got.times)).toEqual(Array.from(want.times));
      }),
    );
  });

  it('averages ranks that logged the same steps, and leaves their columns alone', () => {
    const ranks = [0, 1, 2].map((r) => series(r, [r, r + 1, r + 2], [0, 1000, 2000]));
    const m = crossRankMean(ranks);
    expect(Array.from(m.values)).toEqual([1, 2, 3]);
    expect(Array.from(ranks[0].steps)).toEqual([0, 10, 20]);
  });
});

describe('straggler stats', () => {
  it('quantiles by selection equal quantiles of the sorted values', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ noNaN: true }), fc.constant(NaN))),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 5 }),
        (values, qs) => {
          const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
          const want = qs.map((q) => {
            if (!sorted.length) return NaN;
            const pos = (sorted.length - 1) * q;
            const [lo, hi] = [Math.floor(pos), Math.ceil(pos)];
            return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
          });
          const got = quantiles(values, qs);
          got.forEach((g, i) =>
            Number.isNaN(want[i]) ? expect(g).toBeNaN() : expect(g + 0).toBe(want[i] + 0),
          ); // -0 is 0
        },
      ),
    );
  });

  it('quantile interpolates and ignores NaN', () => {
    expect(quantile([3, 1, 2, NaN], 0.5)).toBe(2);
    expect(quantile([0, 10], 0.95)).toBeCloseTo(9.5);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it('seconds between logged steps, per rank median and p95, final value, and the slowest rank', () => {
    expect(Array.from(stepSeconds(series(0, [1, 1, 1], [0, 1500, 2500])).seconds)).toEqual([1.5, 1]);
    const fast = [0, 1, 2, 3, 4].map((r) => series(r, [5, 4, 3], [0, 1000, 2000]));
    const slow = series(5, [5, 4, 2], [0, 3000, 6000], 'slow-node');
    const stats = stragglerStats([slow, ...fast]);
    expect(stats.map((s) => s.rank)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(stats[0]).toMatchObject({ median: 1, p95: 1, final: 3, relative: 1 });
    expect(stats[5]).toMatchObject({ host: 'slow-node', median: 3, final: 2, relative: 3 });
    expect(slowest(stats)?.rank).toBe(5);
  });
});
