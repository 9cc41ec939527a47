// The cross-rank mean of one metric: at each step, the mean over the ranks that logged that step.
import type { MetricSeries } from '../model';

export interface Column {
  steps: Float64Array;
  values: Float64Array;
  /** Mean time (ms) the ranks logged the step. */
  times: Float64Array;
}

export function crossRankMean(series: MetricSeries[]): Column {
  const sum = new Map<number, { v: number; t: number; n: number; nt: number }>();
  for (const s of series) {
    for (let i = 0; i < s.steps.length; i++) {
      const v = s.values[i];
      if (!Number.isFinite(v)) continue;
      const e = sum.get(s.steps[i]) ?? { v: 0, t: 0, n: 0, nt: 0 };
      e.v += v;
      e.n++;
      if (Number.isFinite(s.times[i])) {
        e.t += s.times[i];
        e.nt++;
      }
      sum.set(s.steps[i], e);
    }
  }
  const steps = Float64Array.from(sum.keys()).sort();
  return {
    steps,
    values: steps.map((st) => sum.get(st)!.v / sum.get(st)!.n),
    times: steps.map((st) => (sum.get(st)!.nt ? sum.get(st)!.t / sum.get(st)!.nt : NaN)),
  };
}
