// Straggler statistics: how long each rank took per logged step (from the line times), and how much
// CPU time each rank's command used (from the rank facts).
import type { RankFacts } from '../../core';
import type { MetricSeries } from '../model';

/** Seconds between one rank's consecutive logged steps; `steps` is a view of the series' own (read only). */
export function stepSeconds(s: MetricSeries): { steps: Float64Array; seconds: Float64Array } {
  const { steps, times } = s;
  const n = Math.max(0, steps.length - 1);
  const seconds = new Float64Array(n);
  for (let i = 1; i < steps.length; i++) seconds[i - 1] = (times[i] - times[i - 1]) / 1000;
  return { steps: steps.subarray(1, n + 1), seconds };
}

/** The q-quantiles (0..1) of the finite values, linear between order statistics; NaN when there are none. */
export function quantiles(values: ArrayLike<number>, qs: number[]): number[] {
  const v = new Float64Array(values.length);
  let n = 0;
  for (let i = 0; i < values.length; i++) if (Number.isFinite(values[i])) v[n++] = values[i];
  return quantilesOf(v, n, qs);
}

/** quantiles() of v[0..n), which are finite; reorders them. */
function quantilesOf(v: Float64Array, n: number, qs: number[]): number[] {
  if (n === 0) return qs.map(() => NaN);
  // Only the order statistics the qs need, each by selection (linear time), not a sort of all values.
  const ranks = [...new Set(qs.flatMap((q) => [Math.floor((n - 1) * q), Math.ceil((n - 1) * q)]))].sort(
    (a, b) => a - b,
  );
  let from = 0;
  for (const k of ranks) {
    select(v, k, from, n - 1);
    from = k + 1; // v[k] is in place and stays: everything after it is no smaller
  }
  return qs.map((q) => {
    const pos = (n - 1) * q;
    const [lo, hi] = [Math.floor(pos), Math.ceil(pos)];
    return v[lo] + (v[hi] - v[lo]) * (pos - lo);
  });
}

/** Floyd-Rivest selection (as d3-array's quickselect): reorders a[left..right] so that a[k] is the value a
 *  sort would put there, with no larger value before it and no smaller one after it. No NaN in `a`. */
function select(a: Float64Array, k: number, left: number, right: number): void {
  while (right > left) {
    if (right - left > 600) {
      const n = right - left + 1;
      const m = k - left + 1;
      const z = Math.log(n);
      const s = 0.5 * Math.exp((2 * z) / 3);
      const sd = 0.5 * Math.sqrt((z * s * (n - s)) / n) * (m - n / 2 < 0 ? -1 : 1);
      const newLeft = Math.max(left, Math.floor(k - (m * s) / n + sd));
      const newRight = Math.min(right, Math.floor(k + ((n - m) * s) / n + sd));
      select(a, k, newLeft, newRight);
    }
    const t = a[k];
    let i = left;
    let j = right;
    swap(a, left, k);
    if (a[right] > t) swap(a, left, right);
    while (i < j) {
      swap(a, i, j);
      i++;
      j--;
      while (a[i] < t) i++;
      while (a[j] > t) j--;
    }
    if (a[left] === t) swap(a, left, j);
    else {
      j++;
      swap(a, j, right);
    }
    if (j <= k) left = j + 1;
    if (k <= j) right = j - 1;
  }
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
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
  // stepSeconds' finite values, in one buffer for all ranks
  const seconds = new Float64Array(Math.max(0, ...series.map((s) => s.times.length)));
  const rows = series.map((s) => {
    const { steps, times } = s;
    let n = 0;
    for (let i = 1; i < steps.length; i++) {
      const d = (times[i] - times[i - 1]) / 1000;
      if (Number.isFinite(d)) seconds[n++] = d;
    }
    const [median, p95] = quantilesOf(seconds, n, [0.5, 0.95]);
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
  const medians = rows.map((r) => r.median);
  const typical = quantile(medians, 0.5);
  for (const r of rows) r.relative = typical > 0 ? r.median / typical : NaN;
  return rows.sort((a, b) => a.rank - b.rank);
}

/** A rank stands out as a straggler when its median time per logged step is this many times the
 *  median rank's. Under DDP every step waits for the slowest rank, so all ranks log at its pace:
 *  their step times agree and cannot single it out. */
export const STANDS_OUT = 1.05;

/** The slowest rank if it stands out; `undefined` with fewer than two timed ranks or when none does. */
export function standingOut(stats: RankStats[]): RankStats | undefined {
  const slow = slowest(stats);
  const timed = stats.filter((s) => Number.isFinite(s.median)).length;
  return slow && timed >= 2 && slow.relative >= STANDS_OUT ? slow : undefined;
}

/** The rank with the largest median time per logged step, if any rank has timings. */
export function slowest(stats: RankStats[]): RankStats | undefined {
  return stats
    .filter((s) => Number.isFinite(s.median))
    .sort((a, b) => b.median - a.median || a.rank - b.rank)[0];
}

/** A rank stands out by CPU time when its command used this many times the median rank's CPU seconds. */
export const CPU_STANDS_OUT = 1.5;

export interface RankCpu {
  rank: number;
  host: string;
  /** CPU seconds of the rank's command (user and system), as the bootstrap recorded at its end. */
  cpu: number;
  /** cpu / the median rank's. */
  relative: number;
}

/** The ranks whose facts hold their CPU seconds (ranks that ended), by rank. */
export function cpuStats(facts: RankFacts[]): RankCpu[] {
  const rows = facts
    .filter((f) => f.cpu_s !== undefined && Number.isFinite(f.cpu_s))
    .map((f) => ({ rank: f.rank, host: f.host, cpu: f.cpu_s as number, relative: NaN }))
    .sort((a, b) => a.rank - b.rank);
  const typical = quantile(
    rows.map((r) => r.cpu),
    0.5,
  );
  for (const r of rows) r.relative = typical > 0 ? r.cpu / typical : NaN;
  return rows;
}

/** Who the data single out as the straggler: by step time (`step`) if a rank stands out there, else by
 *  CPU time (`cpu`: under DDP every rank steps at the slowest one's pace, but a rank that computes more
 *  uses more CPU), else nobody (`none`). `undefined` with fewer than two timed ranks. */
export type Straggler =
  { by: 'step'; rank: RankStats } | { by: 'cpu'; rank: RankCpu } | { by: 'none'; cpuRanks: number };

export function findStraggler(stats: RankStats[], cpu: RankCpu[]): Straggler | undefined {
  if (stats.filter((s) => Number.isFinite(s.median)).length < 2) return undefined;
  const slow = standingOut(stats);
  if (slow) return { by: 'step', rank: slow };
  const busy = cpuStandingOut(cpu);
  return busy ? { by: 'cpu', rank: busy } : { by: 'none', cpuRanks: cpu.length };
}

/** The rank that used the most CPU if it stands out; `undefined` with fewer than two measured ranks. */
export function cpuStandingOut(cpu: RankCpu[]): RankCpu | undefined {
  const busiest = [...cpu].sort((a, b) => b.cpu - a.cpu || a.rank - b.rank)[0];
  return cpu.length >= 2 && busiest && busiest.relative >= CPU_STANDS_OUT ? busiest : undefined;
}
