// The log-scale decision for a value axis: a loss that falls from 1 to 0.001 is a flat line on a linear axis.

/** How many decades (powers of ten) the positive finite values span; 0 when there are fewer than two. */
export function decadesSpanned(columns: Iterable<ArrayLike<number>>): number {
  let min = Infinity;
  let max = -Infinity;
  for (const col of columns) {
    for (let i = 0; i < col.length; i++) {
      const v = col[i];
      if (!Number.isFinite(v)) continue;
      if (v <= 0) return 0; // a log axis cannot show zero or negative values
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return max > min ? Math.log10(max / min) : 0;
}

/** Log scale when all values are positive and span at least `minDecades` (default 2: a factor of 100). */
export function useLogScale(columns: Iterable<ArrayLike<number>>, minDecades = 2): boolean {
  return decadesSpanned(columns) >= minDecades;
}
