// Which series go to validation, and which rank gets each series. Pure: series statistics in,
// an assignment out. Every series goes whole to one rank (locality); positives are spread first,
// candidate counts second. What is guaranteed, and when exact balance is impossible: docs/data.md.
import { seededRng, shuffleInPlace } from './rng';

export interface SeriesStat {
  id: string;
  candidates: number;
  positives: number;
}

export type Split = 'train' | 'val';
export const SPLITS: readonly Split[] = ['train', 'val'];

export interface ShardPlan {
  /** Per series: 1 when it is in the validation split. */
  val: Uint8Array;
  /** Per series: the rank that reads it. */
  rank: Int32Array;
  /** Per split, per rank: totals. */
  perRank: Record<Split, RankTotals[]>;
}

export interface RankTotals {
  rows: number;
  positives: number;
  series: number;
}

/** Series sorted by uid (so the input's row order does not matter), then shuffled with the seed. */
export function seededOrder(series: readonly SeriesStat[], seed: number): number[] {
  const order = series
    .map((_, k) => k)
    .sort((a, b) => (series[a].id < series[b].id ? -1 : series[a].id > series[b].id ? 1 : 0));
  return shuffleInPlace(order, seededRng(seed, 'track-launch data shard'));
}

/** Validation series, stratified by positives (docs/data.md, "How series are assigned", step 2). */
export function chooseValidation(
  series: readonly SeriesStat[],
  order: readonly number[],
  fraction: number,
  worldSize = 1,
): Uint8Array {
  const val = new Uint8Array(series.length);
  if (fraction <= 0) return val;
  const wantP = Math.round(fraction * series.reduce((n, s) => n + s.positives, 0));
  const wantC = Math.round(fraction * series.reduce((n, s) => n + s.candidates, 0));
  let p = 0;
  let c = 0;
  // Small positive series first (at most a rank's share each), so validation can be balanced too.
  const share = Math.max(1, Math.floor(wantP / worldSize));
  for (const small of [true, false]) {
    for (const k of order) {
      const s = series[k];
      if (val[k] || s.positives === 0 || (small && s.positives > share)) continue;
      if (p + s.positives <= wantP) {
        val[k] = 1;
        p += s.positives;
        c += s.candidates;
      }
    }
  }
  for (const k of order) {
    const s = series[k];
    if (s.positives === 0 && c + s.candidates <= wantC) {
      val[k] = 1;
      c += s.candidates;
    }
  }
  return val;
}

/** Assigns the series `members` (in seeded order, which breaks ties) to ranks 0..worldSize-1, greedily:
 *  positives first, then candidates (docs/data.md, "How series are assigned", step 3). */
export function assignRanks(
  series: readonly SeriesStat[],
  members: readonly number[],
  worldSize: number,
  rank: Int32Array,
): RankTotals[] {
  const pos = new Float64Array(worldSize);
  const cand = new Float64Array(worldSize);
  const count = new Int32Array(worldSize);
  const place = new Map(members.map((k, i) => [k, i]));
  const byPositives = members
    .filter((k) => series[k].positives > 0)
    .sort(
      (a, b) =>
        series[b].positives - series[a].positives ||
        series[b].candidates - series[a].candidates ||
        place.get(a)! - place.get(b)!,
    );
  for (const k of byPositives) {
    let best = 0;
    for (let r = 1; r < worldSize; r++) {
      if (pos[r] < pos[best] || (pos[r] === pos[best] && cand[r] < cand[best])) best = r;
    }
    rank[k] = best;
    pos[best] += series[k].positives;
    cand[best] += series[k].candidates;
    count[best]++;
  }
  improvePositives(series, byPositives, rank, pos, cand, count);
  const byCandidates = members
    .filter((k) => series[k].positives === 0)
    .sort((a, b) => series[b].candidates - series[a].candidates || place.get(a)! - place.get(b)!);
  for (const k of byCandidates) {
    let best = 0;
    for (let r = 1; r < worldSize; r++) {
      if (cand[r] < cand[best] || (cand[r] === cand[best] && count[r] < count[best])) best = r;
    }
    rank[k] = best;
    cand[best] += series[k].candidates;
    count[best]++;
  }
  return Array.from({ length: worldSize }, (_, r) => ({
    rows: cand[r],
    positives: pos[r],
    series: count[r],
  }));
}

/** Narrows the positives' spread after the greedy pass: while some series of a fullest rank A,
 *  moved to an emptiest rank B (or swapped with one of B's), brings the two closer, do the best
 *  such move (ties: the one that evens candidates most). Each move lowers the sum of squared
 *  positives, so this ends; the spread never grows. */
function improvePositives(
  series: readonly SeriesStat[],
  placed: readonly number[],
  rank: Int32Array,
  pos: Float64Array,
  cand: Float64Array,
  count: Int32Array,
): void {
  const n = pos.length;
  for (let iter = 0; iter < 4 * placed.length + 16; iter++) {
    let hi = -Infinity;
    let lo = Infinity;
    for (let r = 0; r < n; r++) {
      hi = Math.max(hi, pos[r]);
      lo = Math.min(lo, pos[r]);
    }
    if (hi - lo <= 1) return;
    const on = (r: number) => placed.filter((k) => rank[k] === r);
    let best: { gap: number; cgap: number; a: number; b: number; s: number; t: number } | undefined;
    for (let a = 0; a < n; a++) {
      if (pos[a] !== hi) continue;
      const onA = on(a);
      for (let b = 0; b < n; b++) {
        if (pos[b] !== lo) continue;
        const d = hi - lo;
        const onB = [-1, ...on(b)];
        for (const s of onA) {
          for (const t of onB) {
            const dp = series[s].positives - (t < 0 ? 0 : series[t].positives);
            if (dp <= 0 || dp >= d) continue;
            const dc = series[s].candidates - (t < 0 ? 0 : series[t].candidates);
            const gap = Math.abs(d - 2 * dp);
            const cgap = Math.abs(cand[a] - cand[b] - 2 * dc);
            if (!best || gap < best.gap || (gap === best.gap && cgap < best.cgap))
              best = { gap, cgap, a, b, s, t };
          }
        }
      }
    }
    if (!best) return;
    const { a, b, s, t } = best;
    const moved = [s, ...(t < 0 ? [] : [t])];
    if (t < 0) {
      count[a]--;
      count[b]++;
    }
    for (const k of moved) {
      const from = rank[k];
      const to = from === a ? b : a;
      rank[k] = to;
      pos[from] -= series[k].positives;
      pos[to] += series[k].positives;
      cand[from] -= series[k].candidates;
      cand[to] += series[k].candidates;
    }
  }
}

/** The whole plan: validation split, then each split's series over the ranks. */
export function planShards(
  series: readonly SeriesStat[],
  opts: { worldSize: number; valFraction: number; seed: number },
): ShardPlan {
  const order = seededOrder(series, opts.seed);
  const val = chooseValidation(series, order, opts.valFraction, opts.worldSize);
  const rank = new Int32Array(series.length).fill(-1);
  const members = (v: number) => order.filter((k) => val[k] === v);
  const split = (v: number) => assignRanks(series, members(v), opts.worldSize, rank);
  return { val, rank, perRank: { train: split(0), val: split(1) } };
}
