// The mean of one metric at each step over the ranks that logged it, in columns (no per-point objects).
import type { MetricSeries } from '../model';

export interface Column {
  steps: Float64Array;
  values: Float64Array;
  /** Mean time (ms) the ranks logged the step. */
  times: Float64Array;
  /** The smallest and largest value over the ranks at the step: the band drawn around the mean. */
  min: Float64Array;
  max: Float64Array;
}

/** The distinct steps of `s` that have a finite value, ascending (-0 as 0); whether a NaN step has one. */
function distinctSteps(s: MetricSeries): { steps: Float64Array; nan: boolean } {
  const { steps, values } = s;
  // The usual column: steps ascending, every value finite; then it is its own answer, no copy.
  let prev = -Infinity;
  let i = 0;
  for (; i < steps.length; i++) {
    const st = steps[i];
    if (!(st > prev) || !Number.isFinite(values[i]) || (st === 0 && 1 / st < 0)) break;
    prev = st;
  }
  if (i === steps.length) return { steps, nan: false };
  const out = new Float64Array(steps.length);
  let m = 0;
  let nan = false;
  for (let i = 0; i < steps.length; i++) {
    if (!Number.isFinite(values[i])) continue;
    const st = steps[i];
    if (st !== st) nan = true;
    else out[m++] = st === 0 ? 0 : st; // -0 and 0 are one step
  }
  const sorted = out.subarray(0, m).sort();
  let u = 0;
  for (let i = 0; i < m; i++) if (u === 0 || sorted[i] !== sorted[u - 1]) sorted[u++] = sorted[i];
  return { steps: sorted.subarray(0, u), nan };
}

/** The sorted union of two ascending arrays of distinct values. */
function union(a: Float64Array, b: Float64Array): Float64Array {
  if (a.length === 0) return b;
  if (a.length === b.length) {
    let same = true;
    for (let i = 0; i < a.length && same; i++) same = a[i] === b[i];
    if (same) return a; // the usual case: every rank logged the same steps
  }
  const out = new Float64Array(a.length + b.length);
  let [i, j, m] = [0, 0, 0];
  while (i < a.length && j < b.length) {
    if (a[i] < b[j]) out[m++] = a[i++];
    else if (b[j] < a[i]) out[m++] = b[j++];
    else {
      out[m++] = a[i++];
      j++;
    }
  }
  while (i < a.length) out[m++] = a[i++];
  while (j < b.length) out[m++] = b[j++];
  return out.subarray(0, m);
}

/** Index of `v` in the ascending `xs` (which holds it). */
function indexOf(xs: Float64Array, v: number): number {
  let [lo, hi] = [0, xs.length - 1];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Sums in the order of `series`, then line order: the same bits whichever order the ranks were read in. */
export function crossRankMean(series: MetricSeries[]): Column {
  let known: Float64Array = new Float64Array(0); // (typed wide: it may become a view of a series' steps)
  let nanStep = false;
  for (const s of series) {
    const d = distinctSteps(s);
    known = union(known, d.steps);
    nanStep ||= d.nan;
  }
  const slots = known.length + (nanStep ? 1 : 0);
  const steps = new Float64Array(slots);
  steps.set(known);
  if (nanStep) steps[known.length] = NaN; // a NaN step comes last
  const v = new Float64Array(slots);
  const t = new Float64Array(slots);
  const n = new Float64Array(slots);
  const nt = new Float64Array(slots);
  const min = new Float64Array(slots).fill(Infinity);
  const max = new Float64Array(slots).fill(-Infinity);
  for (const { steps: ss, values: vs, times: ts } of series) {
    let h = 0; // the slot of the previous point: lines are usually in step order
    for (let i = 0; i < ss.length; i++) {
      const value = vs[i];
      if (!Number.isFinite(value)) continue;
      const st = ss[i];
      let k: number;
      if (st !== st) k = known.length;
      else {
        if (known[h] !== st) h = h + 1 < known.length && known[h + 1] === st ? h + 1 : indexOf(known, st);
        k = h;
      }
      v[k] += value;
      n[k]++;
      if (value < min[k]) min[k] = value;
      if (value > max[k]) max[k] = value;
      const time = ts[i];
      if (Number.isFinite(time)) {
        t[k] += time;
        nt[k]++;
      }
    }
  }
  const values = new Float64Array(slots);
  const times = new Float64Array(slots);
  for (let k = 0; k < slots; k++) {
    values[k] = v[k] / n[k];
    times[k] = nt[k] ? t[k] / nt[k] : NaN;
  }
  return { steps, values, times, min, max };
}
