// Smoothing, log ticks, the min-max band and the wall clock: each checked against values worked out by hand.
import { crossRankMean } from '../../../reports/stats/mean';
import { formatLogTick, logTicks } from '../../../reports/stats/log-ticks';
import { checkSmoothing, emaSmooth } from '../../../reports/stats/smooth';
import { toWall, wallClock } from '../../../reports/stats/wall-time';
import type { MetricSeries } from '../../../reports/model';

describe('emaSmooth (TensorBoard: debiased EMA)', () => {
  it('matches the debiased average worked out by hand', () => {
    // w = 0.5: last_1 = 0.5*4 = 2, /(1-0.5) = 4; last_2 = 0.5*2 + 0.5*8 = 5, /(1-0.25) = 6.6667;
    // last_3 = 0.5*5 + 0.5*2 = 3.5, /(1-0.125) = 4
    const got = Array.from(emaSmooth([4, 8, 2], 0.5));
    expect(got[0]).toBeCloseTo(4, 12);
    expect(got[1]).toBeCloseTo(20 / 3, 12);
    expect(got[2]).toBeCloseTo(4, 12);
  });

  it('leaves values as they are at weight 0 and a constant series constant at any weight', () => {
    expect(Array.from(emaSmooth([3, 1, 2], 0))).toEqual([3, 1, 2]);
    for (const v of emaSmooth([5, 5, 5, 5], 0.9)) expect(v).toBeCloseTo(5, 12);
  });

  it('keeps a NaN where it is and leaves it out of the average', () => {
    const got = Array.from(emaSmooth([4, NaN, 8], 0.5));
    expect(got[1]).toBeNaN();
    expect(got[2]).toBeCloseTo(20 / 3, 12); // as if the NaN were not there
  });

  it('refuses weights outside [0, 1)', () => {
    for (const w of [-0.1, 1, 1.5, NaN]) expect(() => checkSmoothing(w)).toThrow(/--smooth/);
    expect(checkSmoothing(0.99)).toBe(0.99);
  });
});

describe('log ticks at 1-2-5', () => {
  it('ticks each decade at 1, 2 and 5 within the range', () => {
    expect(logTicks(0.0015, 1.2)).toEqual([0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1]);
  });

  it('falls back to 1..9 when the range holds fewer than three 1-2-5 ticks', () => {
    expect(logTicks(0.25, 0.9)).toEqual([0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]);
  });

  it('labels with one significant digit, exponents outside 1e-3..1e4', () => {
    expect([0.002, 0.5, 1, 20, 5000, 2e-5, 5e6].map(formatLogTick)).toEqual([
      '0.002',
      '0.5',
      '1',
      '20',
      '5000',
      '2e-5',
      '5e6',
    ]);
  });
});

const series = (rank: number, steps: number[], values: number[], times = steps.map((s) => s * 1000)) =>
  ({
    rank,
    key: 'loss',
    steps: Float64Array.from(steps),
    values: Float64Array.from(values),
    times: Float64Array.from(times),
  }) as MetricSeries;

describe('the min-max band over ranks', () => {
  it('is the smallest and largest value at each step, over the ranks that logged it', () => {
    const m = crossRankMean([
      series(0, [0, 1, 2], [1, 5, 3]),
      series(1, [0, 1], [4, 2]),
      series(2, [1], [9]),
    ]);
    expect(Array.from(m.min)).toEqual([1, 2, 3]);
    expect(Array.from(m.max)).toEqual([4, 9, 3]);
  });
});

describe('the wall clock', () => {
  it('counts from the first logged line in a unit that fits the span', () => {
    const short = wallClock([series(0, [0, 1], [1, 1], [5000, 65_000])])!;
    expect(short).toEqual({ t0: 5000, unitMs: 1000, title: 'seconds since the first logged line' });
    expect(Array.from(toWall([5000, 65_000, NaN], short))).toEqual([0, 60, NaN]);
    expect(wallClock([series(0, [0, 1], [1, 1], [0, 3600_000])])!.title).toBe(
      'minutes since the first logged line',
    );
    expect(wallClock([series(0, [0, 1], [1, 1], [0, 48 * 3600_000])])!.unitMs).toBe(3_600_000);
    expect(wallClock([series(0, [0], [1], [NaN])])).toBeUndefined();
  });
});
