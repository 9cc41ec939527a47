// PointColumns (points as columns, logs/columns.ts) against the points as objects: growth, reuse
// after clear, key ids; and what is made from them (spool records, aggregates, report columns) is
// what the objects give.
import fc from 'fast-check';
import { toMetricSeries } from '../../../reports/load/metrics';
import { Aggregator } from '../../../tracking-plugin/ingest/aggregate';
import { encodeRecords } from '../../../tracking-plugin/ingest/records';
import { PointColumns } from '../../../tracking-plugin/logs/columns';
import type { MetricPoint, RankSeries } from '../../../tracking-plugin/types';

const point = fc.record({
  key: fc.oneof(
    fc.constantFrom('loss', 'acc', 'a "q"', 'é/ü', '\u2028', 'x\\y'),
    fc.string({ maxLength: 6 }),
  ),
  value: fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, -0, 0.1, 1e21, 5e-324)),
  step: fc.oneof(fc.nat(), fc.constant(2 ** 53 - 1)),
  timestamp: fc.oneof(fc.nat(), fc.constant(1764669000123.5)),
});
const points = fc.array(point, { maxLength: 200 });

/** The old encodeRecords, one JSON.stringify per point: the spool format the columns must keep. */
const refRecords = (ps: MetricPoint[]): string =>
  ps
    .map(
      (p) =>
        JSON.stringify([
          p.key,
          Number.isNaN(p.value)
            ? 'NaN'
            : Math.abs(p.value) === Infinity
              ? p.value > 0
                ? 'Infinity'
                : '-Infinity'
              : p.value,
          p.step,
          p.timestamp,
        ]) + '\n',
    )
    .join('');

describe('PointColumns', () => {
  it('holds the points pushed, in order, past many growths; clear() reuses it', () => {
    fc.assert(
      fc.property(points, points, (a, b) => {
        const c = PointColumns.from(a);
        expect(c.length).toBe(a.length);
        expect(c.toPoints()).toStrictEqual(a.map((p) => ({ ...p })));
        const ids = c.keys.slice();
        c.clear();
        expect(c.length).toBe(0);
        for (const p of b) c.push(c.idAt(p.key, 0), p.value, p.step, p.timestamp);
        expect(c.toPoints()).toStrictEqual(b);
        expect(c.keys.slice(0, ids.length)).toEqual(ids); // ids kept across clear()
        expect(c.toPoints(1, 3)).toStrictEqual(b.slice(1, 3));
      }),
    );
    const big = new PointColumns();
    for (let i = 0; i < 100_000; i++) big.push(big.idOf(`k${i % 3}`), i / 7, i, 2 * i);
    expect([big.length, big.keys, big.toPoints(99_999)[0]]).toStrictEqual([
      100_000,
      ['k0', 'k1', 'k2'],
      { key: 'k0', value: 99_999 / 7, step: 99_999, timestamp: 199_998 },
    ]);
  });

  it('idAt: the slot cache never gives another key its id; many keys are forgotten at clear()', () => {
    const c = new PointColumns();
    expect([c.idAt('a', 0), c.idAt('b', 0), c.idAt('a', 0), c.idAt('a', 1), c.idAt('b', 99)]).toEqual([
      0, 1, 0, 0, 1,
    ]);
    for (let i = 0; i < 5000; i++) c.idOf(`k${i}`);
    c.push(c.idAt('a', 0), 1, 2, 3);
    c.clear();
    expect(c.keys.length).toBe(0);
    c.push(c.idAt('z', 0), 1, 2, 3);
    c.push(c.idAt('a', 0), 4, 5, 6); // the slot held 'a' before the table was forgotten
    expect(c.toPoints().map((p) => p.key)).toEqual(['z', 'a']);
  });

  it('encodeRecords of the columns is byte for byte that of the points', () => {
    fc.assert(
      fc.property(points, (ps) => {
        const want = refRecords(ps);
        expect(encodeRecords(ps)).toBe(want);
        expect(encodeRecords(PointColumns.from(ps))).toBe(want);
      }),
    );
  });

  it('Aggregator.addColumns keeps what add keeps, point by point', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(3), points), { maxLength: 6 }), (byRank) => {
        const a = new Aggregator();
        const b = new Aggregator();
        for (const [rank, ps] of byRank) {
          for (const p of ps) a.add(rank, p);
          b.addColumns(rank, PointColumns.from(ps));
        }
        const taken = (x: Aggregator) => [x.take(4), x.pendingCount, x.repeatedCount];
        expect(taken(b)).toStrictEqual(taken(a));
      }),
    );
  });

  it('toMetricSeries: one column set per rank and key, each step once (its last line), steps ascending', () => {
    fc.assert(
      fc.property(fc.array(points, { maxLength: 3 }), (ranks) => {
        const series: RankSeries[] = ranks.map((ps, rank) => ({
          rank,
          columns: PointColumns.from(ps),
          points: ps,
          skipped: 0,
        }));
        const got = toMetricSeries(series).map((s) => ({
          rank: s.rank,
          key: s.key,
          steps: [...s.steps],
          values: [...s.values],
          times: [...s.times],
        }));
        const want = ranks.flatMap((ps, rank) =>
          [...new Set(ps.map((p) => p.key))].map((key) => {
            // each step's last line (steps here are naturals), ascending
            const last = new Map<number, MetricPoint>();
            for (const p of ps) if (p.key === key) last.set(p.step, p);
            const own = [...last.values()].sort((a, b) => a.step - b.step);
            return {
              rank,
              key,
              steps: own.map((p) => p.step),
              values: own.map((p) => p.value),
              times: own.map((p) => p.timestamp),
            };
          }),
        );
        want.sort((x, y) => x.rank - y.rank || x.key.localeCompare(y.key));
        expect(got).toStrictEqual(want);
      }),
    );
  });
});
