// What docs/data.md promises about one split's positives per rank, and what a plan achieved.
import type { RankTotals, SeriesStat } from './assign';

/** What docs/data.md promises for one split's positives, and what was achieved. */
export interface PositiveBalance {
  total: number;
  /** total / world size. */
  fair: number;
  min: number;
  max: number;
  /** The most positives in one series of the split. */
  largestSeries: number;
  /** Series with exactly one positive. */
  singleSeries: number;
  /** true when max - min <= 1 is guaranteed: singleSeries >= (worldSize - 1) x (largestSeries - 1). */
  withinOneGuaranteed: boolean;
  /** The bound on max - min that holds: 1 when withinOneGuaranteed, else max(1, largestSeries). */
  bound: number;
  /** A series holds more than ceil(fair) positives: no assignment can be within one of fair. */
  exactImpossible: boolean;
}

export function positiveBalance(
  series: readonly SeriesStat[],
  members: readonly number[],
  totals: readonly RankTotals[],
): PositiveBalance {
  const worldSize = totals.length;
  let total = 0;
  let largest = 0;
  let single = 0;
  for (const k of members) {
    const p = series[k].positives;
    total += p;
    largest = Math.max(largest, p);
    if (p === 1) single++;
  }
  const ps = totals.map((t) => t.positives);
  const withinOne = single >= (worldSize - 1) * (largest - 1);
  return {
    total,
    fair: total / worldSize,
    min: Math.min(...ps),
    max: Math.max(...ps),
    largestSeries: largest,
    singleSeries: single,
    withinOneGuaranteed: withinOne,
    bound: withinOne ? 1 : Math.max(1, largest),
    exactImpossible: largest > Math.ceil(total / worldSize),
  };
}
