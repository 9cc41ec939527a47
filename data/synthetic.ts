// Synthetic LUNA16-shaped CSVs from a seed: by default the real candidates.csv's counts, positives in about
// two thirds of the series (a few holding many), candidate counts varying about 7x between series.
import { TrackLaunchError } from '../core';
import { csvRecord } from './csv';
import { CANDIDATE_COLUMNS, ANNOTATION_COLUMNS } from './luna-table';
import { Rng, randInt, seededRng, shuffleInPlace } from './rng';

export const LUNA16_SHAPE = { series: 888, candidates: 551_065, positives: 1_351 } as const;

export interface SyntheticOptions {
  series?: number;
  candidates?: number;
  positives?: number;
  seed?: number;
  /** Most positives in one series (default 16). */
  maxPositivesPerSeries?: number;
}

export interface SyntheticLuna {
  /** candidates.csv text (header, LF line endings, rows grouped by series). */
  candidates: string;
  /** annotations.csv text: one nodule for most positive candidates. */
  annotations: string;
  series: { id: string; candidates: number; positives: number }[];
}

const UID_PREFIX = '1.3.6.1.4.1.14519.5.2.1.6279.6001.';

export function syntheticLuna(opts: SyntheticOptions = {}): SyntheticLuna {
  const S = opts.series ?? LUNA16_SHAPE.series;
  const R = opts.candidates ?? LUNA16_SHAPE.candidates;
  const P = opts.positives ?? LUNA16_SHAPE.positives;
  const cap = opts.maxPositivesPerSeries ?? 16;
  if (!([S, R, P].every(Number.isInteger) && S >= 1 && P >= 0 && R >= S + P && P <= S * cap)) {
    throw new TrackLaunchError(
      'INVALID_SPEC',
      `synthetic LUNA data: need series >= 1, positives >= 0, candidates >= series + positives, positives <= series x ${cap}`,
    );
  }
  const rng = seededRng(opts.seed ?? 0, 'track-launch synthetic luna');
  const ids = uniqueIds(S, rng);
  const pos = spreadPositives(S, P, cap, rng);
  const counts = spreadCandidates(S, R, pos, rng);
  const cand: string[] = [CANDIDATE_COLUMNS.join(',')];
  const ann: string[] = [ANNOTATION_COLUMNS.join(',')];
  for (let s = 0; s < S; s++) {
    const seen = new Set<string>();
    const isPos = new Uint8Array(counts[s]);
    let left = pos[s];
    while (left > 0) {
      const k = randInt(rng, counts[s]);
      if (!isPos[k]) {
        isPos[k] = 1;
        left--;
      }
    }
    for (let k = 0; k < counts[s]; k++) {
      let xyz: string[];
      do xyz = [coord(rng, -200, 200), coord(rng, -300, 100), coord(rng, -350, 50)];
      while (seen.has(xyz.join()));
      seen.add(xyz.join());
      cand.push(csvRecord([ids[s], ...xyz, String(isPos[k])]));
      if (isPos[k] && rng() < 0.88) {
        const jit = xyz.map((v) => (Number(v) + rng() - 0.5).toFixed(6));
        ann.push(csvRecord([ids[s], ...jit, (3 + rng() * 27).toFixed(8)]));
      }
    }
  }
  return {
    candidates: cand.join('\n') + '\n',
    annotations: ann.join('\n') + '\n',
    series: ids.map((id, s) => ({ id, candidates: counts[s], positives: pos[s] })),
  };
}

function coord(rng: Rng, lo: number, hi: number): string {
  return (lo + rng() * (hi - lo)).toFixed(2);
}

export function uniqueIds(n: number, rng: Rng): string[] {
  const out = new Set<string>();
  while (out.size < n) {
    let digits = String(1 + randInt(rng, 9));
    for (let k = 0; k < 29; k++) digits += String(randInt(rng, 10));
    out.add(UID_PREFIX + digits);
  }
  return [...out];
}

/** About 68% of the series hold positives (601 of 888 in LUNA16); the rest of P is skewed toward a few series. */
export function spreadPositives(S: number, P: number, cap: number, rng: Rng): number[] {
  const pos = new Array<number>(S).fill(0);
  if (P === 0) return pos;
  const k = Math.min(S, P, Math.max(1, Math.round(S * 0.68)));
  const holders = shuffleInPlace([...Array(S).keys()], rng);
  for (let i = 0; i < k; i++) pos[holders[i]] = 1;
  let left = P - k;
  let room = k * (cap - 1);
  while (left > 0 && room > 0) {
    // u x u puts most extra positives on the first few holders; a full one passes it on.
    let i = Math.floor(k * rng() * rng());
    while (pos[holders[i]] >= cap) i = (i + 1) % k;
    pos[holders[i]]++;
    left--;
    room--;
  }
  for (const s of holders) {
    while (left > 0 && pos[s] < cap) {
      pos[s]++;
      left--;
    }
  }
  return pos;
}

/** Candidates per series: weights from 0.25 to 1.75, at least positives + 1, exactly R in total. */
export function spreadCandidates(S: number, R: number, pos: number[], rng: Rng): number[] {
  const w = Array.from({ length: S }, () => 0.25 + 1.5 * rng());
  const sum = w.reduce((a, b) => a + b, 0);
  const counts = w.map((x, s) => Math.max(pos[s] + 1, Math.floor((x / sum) * R)));
  let total = counts.reduce((a, b) => a + b, 0);
  for (let s = 0; total !== R; s = (s + 1) % S) {
    if (total < R) {
      counts[s]++;
      total++;
    } else if (counts[s] > pos[s] + 1) {
      counts[s]--;
      total--;
    }
  }
  return counts;
}
