// Largest-Triangle-Three-Buckets: a long series' shape in `target` points, cheap to draw in PNG and PDF.

/** Indices of the points to keep, ascending; all of them when there are no more than `target`. */
export function lttbIndices(x: ArrayLike<number>, y: ArrayLike<number>, target: number): Uint32Array {
  const n = x.length;
  if (target >= n || target < 3) {
    const all = new Uint32Array(n);
    for (let i = 0; i < n; i++) all[i] = i;
    return all;
  }
  const out = new Uint32Array(target);
  const every = (n - 2) / (target - 2);
  let a = 0;
  out[0] = 0;
  for (let i = 0; i < target - 2; i++) {
    // Average of the next bucket: the third corner of the triangle.
    const nextStart = Math.floor((i + 1) * every) + 1;
    const nextEnd = Math.min(Math.floor((i + 2) * every) + 1, n);
    let avgX = 0;
    let avgY = 0;
    for (let j = nextStart; j < nextEnd; j++) {
      avgX += x[j];
      avgY += y[j];
    }
    const len = nextEnd - nextStart;
    avgX /= len;
    avgY /= len;
    const start = Math.floor(i * every) + 1;
    const end = Math.floor((i + 1) * every) + 1;
    let best = start;
    let bestArea = -1;
    const ax = x[a];
    const ay = y[a];
    for (let j = start; j < end; j++) {
      const area = Math.abs((ax - avgX) * (y[j] - ay) - (ax - x[j]) * (avgY - ay));
      if (area > bestArea) {
        bestArea = area;
        best = j;
      }
    }
    out[i + 1] = best;
    a = best;
  }
  out[target - 1] = n - 1;
  return out;
}

/** chart.js points ({x, y}, parsing off) of the finite values, decimated to at most `target`. */
export function decimate(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  target: number,
): { x: number; y: number }[] {
  const n = Math.min(x.length, y.length);
  let finite = 0;
  while (finite < n && Number.isFinite(x[finite]) && Number.isFinite(y[finite])) finite++;
  let [kx, ky] = [x, y];
  if (finite < n || x.length !== y.length) {
    // copy the finite points (only when there is a gap, or a longer column: the usual columns need none)
    const fx = new Float64Array(n);
    const fy = new Float64Array(n);
    let m = 0;
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(x[i]) || !Number.isFinite(y[i])) continue;
      fx[m] = x[i];
      fy[m++] = y[i];
    }
    [kx, ky] = [fx.subarray(0, m), fy.subarray(0, m)];
  }
  const idx = lttbIndices(kx, ky, target);
  const out = new Array<{ x: number; y: number }>(idx.length);
  for (let i = 0; i < idx.length; i++) out[i] = { x: kx[idx[i]], y: ky[idx[i]] };
  return out;
}
