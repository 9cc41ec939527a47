// Straggler statistics from the line times: how long each rank took per logged step.
import type { MetricSeries } from '../model';

/** Seconds between consecutive logged steps of one rank (one value per step after the first). */
export function stepSeconds(s: MetricSeries): { steps: Float64Array; seconds: Float64Array } {
  const n = Math.max(0, s.steps.length - 1);
  const steps = new Float64Array(n);
  const seconds = new Float64Array(n);
  for (let i = 1; i < s.steps.length; i++) {
    steps[i - 1] = s.steps[i];
    seconds[i - 1] = (s.times[i] - s.times[i - 1]) / 1000;
  }
  return { steps, seconds };
}

/** The q-quantiles (0..1) of the finite values, linear between order statistics; NaN when there are none. */
export function quantiles(values: ArrayLike<number>, qs: number[]): number[] {
  const v = new Float64Array(values.length);
  let n = 0;
  for (let i = 0; i < values.length; i++) if (Number.isFinite(values[i])) v[n++] = values[i];
  const sorted = v.subarray(0, n).sort(); // typed arrays sort numerically, and fast; one sort for all qs
  return qs.map((q) => {
    if (n === 0) return NaN;
    const pos = (n - 1) * q;
    const [lo, hi] = [Math.floor(pos), Math.ceil(pos)];
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
  });
}

export const quantile = (values: ArrayLike<number>, q: number): number => quantiles(values, [q])[0];

export interface RankStats {
  rank: number;
  host?: string;
  /** Median and 95th percentile of seconds per logged step. */
  median: number;
  p95: number;
  /** Last logged value of the metric. */
  final: number;
  /** median / the median of all ranks' medians: 1.5 means 50 % slower than the typical rank. */
  relative: number;
}

export function stragglerStats(series: MetricSeries[]): RankStats[] {
  const rows = series.map((s) => {
    const [median, p95] = quantiles(stepSeconds(s).seconds, [0.5, 0.95]);
    const row: RankStats = {
      rank: s.rank,
      median,
      p95,
      final: s.values[s.values.length - 1] ?? NaN,
      relative: NaN,
    };
    if (s.host !== undefined) row.host = s.host;
    return row;
  });
  const typical = quantile(
    rows.map((r) => r.median),
    0.5,
  );
  for (const r of rows) r.relative = typical > 0 ? r.median / typical : NaN;
  return rows.sort((a, b) => a.rank - b.rank);
}

/** The rank with the largest median time per logged step, if any rank has timings. */
export function slowest(stats: RankStats[]): RankStats | undefined {
  return stats
    .filter((s) => Number.isFinite(s.median))
    .sort((a, b) => b.median - a.median || a.rank - b.rank)[0];
}
