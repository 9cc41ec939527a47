// Property tests of the series -> (split, rank) plan on arbitrary series statistics: what
// docs/data.md promises, checked as stated there.
import fc from 'fast-check';
import { SeriesStat, Split, planShards, seededOrder } from '../../../data/assign';
import { positiveBalance } from '../../../data/balance';

const seriesArb = fc
  .array(
    fc.record({
      candidates: fc.integer({ min: 1, max: 3000 }),
      // Mostly none or one positive, sometimes many: LUNA's shape, and the hard cases.
      positives: fc.oneof(
        { weight: 5, arbitrary: fc.constant(0) },
        { weight: 5, arbitrary: fc.constant(1) },
        { weight: 2, arbitrary: fc.integer({ min: 2, max: 30 }) },
      ),
    }),
    { minLength: 1, maxLength: 120 },
  )
  .map((xs) =>
    xs.map((x, k) => ({
      id: `1.3.6.${(k * 7919) % 10007}.${k}`,
      candidates: Math.max(x.candidates, x.positives),
      positives: x.positives,
    })),
  );

const caseArb = seriesArb.chain((series) =>
  fc.record({
    series: fc.constant(series),
    worldSize: fc.integer({ min: 1, max: Math.min(series.length, 17) }),
    valFraction: fc.constantFrom(0, 0.05, 0.1, 0.25, 0.5),
    seed: fc.integer({ min: 0, max: 1_000_000 }),
  }),
);

function members(plan: ReturnType<typeof planShards>, n: number, split: Split): number[] {
  return Array.from({ length: n }, (_, k) => k).filter((k) => plan.val[k] === (split === 'val' ? 1 : 0));
}

describe('planShards (property)', () => {
  it('puts every series on exactly one rank of one split, with totals that add up', () => {
    fc.assert(
      fc.property(caseArb, ({ series, worldSize, valFraction, seed }) => {
        const plan = planShards(series, { worldSize, valFraction, seed });
        for (let k = 0; k < series.length; k++) {
          expect(plan.rank[k]).toBeGreaterThanOrEqual(0);
          expect(plan.rank[k]).toBeLessThan(worldSize);
          expect([0, 1]).toContain(plan.val[k]);
        }
        for (const split of ['train', 'val'] as const) {
          const m = members(plan, series.length, split);
          for (let r = 0; r < worldSize; r++) {
            const on = m.filter((k) => plan.rank[k] === r);
            expect(plan.perRank[split][r]).toEqual({
              rows: on.reduce((a, k) => a + series[k].candidates, 0),
              positives: on.reduce((a, k) => a + series[k].positives, 0),
              series: on.length,
            });
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('balances positives: within one when single-positive series suffice, never worse than the largest series, locally optimal', () => {
    fc.assert(
      fc.property(caseArb, ({ series, worldSize, valFraction, seed }) => {
        const plan = planShards(series, { worldSize, valFraction, seed });
        for (const split of ['train', 'val'] as const) {
          const m = members(plan, series.length, split);
          const b = positiveBalance(series, m, plan.perRank[split]);
          const spread = b.max - b.min;
          expect(spread).toBeLessThanOrEqual(Math.max(1, b.largestSeries));
          expect(spread).toBeLessThanOrEqual(b.bound);
          if (b.singleSeries >= (worldSize - 1) * (b.largestSeries - 1))
            expect(spread).toBeLessThanOrEqual(1);
          if (b.exactImpossible) expect(b.max).toBeGreaterThan(Math.ceil(b.fair));
          if (spread >= 2)
            expect(
              improvingMove(
                series,
                m,
                plan.rank,
                plan.perRank[split].map((t) => t.positives),
              ),
            ).toBeUndefined();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('balances candidates: the fullest rank is within one series without positives of the emptiest, when it holds one', () => {
    fc.assert(
      fc.property(caseArb, ({ series, worldSize, valFraction, seed }) => {
        const plan = planShards(series, { worldSize, valFraction, seed });
        for (const split of ['train', 'val'] as const) {
          const m = members(plan, series.length, split);
          const rows = plan.perRank[split].map((t) => t.rows);
          const full = rows.indexOf(Math.max(...rows));
          const zeroOnFull = m.filter((k) => plan.rank[k] === full && series[k].positives === 0);
          if (zeroOnFull.length) {
            const largestZero = Math.max(
              ...m.filter((k) => series[k].positives === 0).map((k) => series[k].candidates),
            );
            expect(Math.max(...rows) - Math.min(...rows)).toBeLessThanOrEqual(largestZero);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives every rank a training series whenever there are at least as many as ranks', () => {
    fc.assert(
      fc.property(caseArb, ({ series, worldSize, valFraction, seed }) => {
        const plan = planShards(series, { worldSize, valFraction, seed });
        const train = members(plan, series.length, 'train');
        if (train.length >= worldSize)
          for (const t of plan.perRank.train) expect(t.series).toBeGreaterThan(0);
        if (valFraction === 0) expect(train).toHaveLength(series.length);
      }),
      { numRuns: 200 },
    );
  });

  it('chooses validation series stratified: positives up to round(F x positives), the share of candidates', () => {
    fc.assert(
      fc.property(caseArb, ({ series, worldSize, valFraction, seed }) => {
        const plan = planShards(series, { worldSize, valFraction, seed });
        const val = members(plan, series.length, 'val');
        const P = series.reduce((a, s) => a + s.positives, 0);
        const C = series.reduce((a, s) => a + s.candidates, 0);
        const vp = val.reduce((a, k) => a + series[k].positives, 0);
        expect(vp).toBeLessThanOrEqual(Math.round(valFraction * P));
        // Series without positives only join while the candidates fit.
        const zeroVal = val.filter((k) => series[k].positives === 0);
        if (zeroVal.length)
          expect(val.reduce((a, k) => a + series[k].candidates, 0)).toBeLessThanOrEqual(
            Math.round(valFraction * C),
          );
        // Greedy fill: a positive series left out would have overshot the target.
        const left = series.map((_, k) => k).filter((k) => !plan.val[k] && series[k].positives > 0);
        for (const k of left) expect(vp + series[k].positives).toBeGreaterThan(Math.round(valFraction * P));
      }),
      { numRuns: 200 },
    );
  });

  it('is deterministic for a seed, and does not depend on the order the series come in', () => {
    fc.assert(
      fc.property(caseArb, ({ series, worldSize, valFraction, seed }) => {
        const a = planShards(series, { worldSize, valFraction, seed });
        const b = planShards(series, { worldSize, valFraction, seed });
        expect(Array.from(b.rank)).toEqual(Array.from(a.rank));
        expect(Array.from(b.val)).toEqual(Array.from(a.val));
        const rev = [...series].reverse();
        const c = planShards(rev, { worldSize, valFraction, seed });
        const byId = (p: typeof a, s: SeriesStat[]) =>
          Object.fromEntries(s.map((x, k) => [x.id, [p.val[k], p.rank[k]]]));
        expect(byId(c, rev)).toEqual(byId(a, series));
      }),
      { numRuns: 150 },
    );
  });

  it('the seed changes the order of equal series', () => {
    const series = Array.from({ length: 40 }, (_, k) => ({ id: `s${k}`, candidates: 100, positives: 1 }));
    expect(seededOrder(series, 1)).not.toEqual(seededOrder(series, 2));
    expect(seededOrder(series, 1)).toEqual(seededOrder(series, 1));
  });

  it('when one series holds more positives than a fair share, no one else gets more than the rest would need', () => {
    const series = [
      { id: 'big', candidates: 500, positives: 30 },
      ...Array.from({ length: 30 }, (_, k) => ({ id: `s${k}`, candidates: 100, positives: 1 })),
    ];
    const plan = planShards(series, { worldSize: 4, valFraction: 0, seed: 0 });
    expect(plan.perRank.train.map((t) => t.positives).sort((x, y) => x - y)).toEqual([10, 10, 10, 30]);
  });
});

/** A move of one series from a fullest to an emptiest rank, or a swap, that narrows their gap (brute force). */
function improvingMove(
  series: SeriesStat[],
  m: number[],
  rank: Int32Array,
  pos: number[],
): string | undefined {
  const hi = Math.max(...pos);
  const lo = Math.min(...pos);
  for (let a = 0; a < pos.length; a++) {
    if (pos[a] !== hi) continue;
    for (let b = 0; b < pos.length; b++) {
      if (pos[b] !== lo) continue;
      const onA = m.filter((k) => rank[k] === a);
      const onB = [undefined, ...m.filter((k) => rank[k] === b)];
      for (const s of onA)
        for (const t of onB) {
          const dp = series[s].positives - (t === undefined ? 0 : series[t].positives);
          if (Math.abs(hi - lo - 2 * dp) < hi - lo)
            return `${series[s].id} <-> ${t === undefined ? '-' : series[t].id}`;
        }
    }
  }
  return undefined;
}
