// TensorBoard's smoothing: an EMA debiased like Adam's moments; weight 0 keeps the values, 0.99 smooths hard.
import { invalidOption } from '../../core';

/** Refuses a weight outside [0, 1): 1 would never move off the first value. */
export function checkSmoothing(weight: number): number {
  if (!(weight >= 0 && weight < 1))
    throw invalidOption('smooth', String(weight), 'give a weight in [0, 1), e.g. 0.6 (0: no smoothing)');
  return weight;
}

/** The debiased EMA of `values` in order: s_n = (w s_{n-1} + (1 - w) v_n) / (1 - w^n), n counting finite
 *  values only. Non-finite values are kept as they are and do not enter the average, as in TensorBoard. */
export function emaSmooth(values: ArrayLike<number>, weight: number): Float64Array {
  const out = new Float64Array(values.length);
  let last = 0;
  let wn = 1; // weight^n, kept as a product: no Math.pow per point
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) {
      out[i] = v;
      continue;
    }
    last = last * weight + (1 - weight) * v;
    wn *= weight;
    out[i] = last / (1 - wn);
  }
  return out;
}
