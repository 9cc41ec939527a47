// Synthetic LUNA16 CT series from a seed (pure): each series' geometry and its candidates at voxel centres
// inside the lungs, with candidates.csv and annotations.csv at those voxels' world coordinates.
import { TrackLaunchError } from '../core';
import { csvRecord } from './csv';
import { ANNOTATION_COLUMNS, CANDIDATE_COLUMNS } from './luna-table';
import { Rng, randInt, seededRng, shuffleInPlace } from './rng';
import { spreadCandidates, spreadPositives, uniqueIds } from './synthetic';

export type Vec3 = [number, number, number];

/** Small enough for CI: about 12 MB of CT in 32 series. */
export const CT_DEFAULTS = { series: 32, candidates: 1600, positives: 64, volume: [64, 64, 48] as Vec3 };

export interface CtOptions {
  series?: number;
  candidates?: number;
  positives?: number;
  seed?: number;
  /** Voxels along x, y, z (DimSize). */
  volume?: Vec3;
}

export interface CtCandidate {
  /** Voxel centre (x, y, z index). */
  ijk: Vec3;
  positive: boolean;
  /** Positives: the nodule's diameter in mm. */
  diameterMm?: number;
  /** Some negatives: a vessel-like tube along this axis through the candidate. */
  vesselAxis?: number;
}

export interface CtSeries {
  id: string;
  /** subset0 .. subset9, as LUNA16 is split. */
  subset: string;
  dims: Vec3;
  spacing: Vec3;
  origin: Vec3;
  /** Direction matrix D, row-major: world = origin + D (ijk x spacing). */
  direction: number[];
  candidates: CtCandidate[];
}

export interface SyntheticCt {
  candidates: string;
  annotations: string;
  series: CtSeries[];
  seed: number;
}

const DIRECTIONS = [
  [1, 0, 0, 0, 1, 0, 0, 0, 1],
  [-1, 0, 0, 0, -1, 0, 0, 0, 1], // x and y flipped
  [0, -1, 0, 1, 0, 0, 0, 0, 1], // rotated 90 degrees about z: not symmetric, so transposing it shows
];

function worldOf(s: Pick<CtSeries, 'origin' | 'spacing' | 'direction'>, ijk: Vec3): Vec3 {
  const v = ijk.map((x, a) => x * s.spacing[a]);
  const d = s.direction;
  return [0, 1, 2].map(
    (r) => s.origin[r] + d[3 * r] * v[0] + d[3 * r + 1] * v[1] + d[3 * r + 2] * v[2],
  ) as Vec3;
}

/** The lungs: two ellipsoidal cylinders inside the body (ct-volume.ts draws the same shapes). */
export function inLung(dims: Vec3, i: number, j: number, k: number): boolean {
  const [nx, ny, nz] = dims;
  if (k < nz * 0.08 || k > nz * 0.92) return false;
  const side = (cx: number) => ((i - cx) / (0.15 * nx)) ** 2 + ((j - 0.5 * ny) / (0.28 * ny)) ** 2 <= 1;
  return side(0.3 * nx) || side(0.7 * nx);
}

export function syntheticCt(opts: CtOptions = {}): SyntheticCt {
  const S = opts.series ?? CT_DEFAULTS.series;
  const R = opts.candidates ?? CT_DEFAULTS.candidates;
  const P = opts.positives ?? CT_DEFAULTS.positives;
  const dims = opts.volume ?? CT_DEFAULTS.volume;
  const seed = opts.seed ?? 0;
  const cap = 8;
  if (!(S >= 1 && P >= 0 && R >= S + P && P <= S * cap))
    throw new TrackLaunchError(
      'INVALID_SPEC',
      `synthetic CT: need series >= 1, positives >= 0, candidates >= series + positives, positives <= series x ${cap}`,
    );
  if (!dims.every((n) => Number.isInteger(n) && n >= 16 && n <= 2048))
    throw new TrackLaunchError(
      'INVALID_SPEC',
      `synthetic CT: volume ${dims.join('x')}: each size 16 to 2048 voxels`,
    );
  const rng = seededRng(seed, 'track-launch synthetic ct');
  const ids = uniqueIds(S, rng);
  const pos = spreadPositives(S, P, cap, rng);
  const counts = spreadCandidates(S, R, pos, rng);
  const subsets = Math.min(10, S);
  const series = ids.map((id, s): CtSeries => {
    const xy = round(0.6 + 0.3 * rng(), 6);
    return {
      id,
      subset: `subset${Math.floor((s * subsets) / S)}`,
      dims,
      spacing: [xy, xy, round(1.25 + 1.25 * rng(), 6)],
      origin: [round(-220 + 70 * rng(), 6), round(-220 + 70 * rng(), 6), round(-400 + 150 * rng(), 6)],
      direction: DIRECTIONS[randInt(rng, DIRECTIONS.length)],
      candidates: placeCandidates(dims, counts[s], pos[s], rng, id),
    };
  });
  return { ...csvTexts(series, rng), series, seed };
}

/** Positives first, then negatives at least a nodule's radius and 3 voxels away from every positive. */
function placeCandidates(dims: Vec3, n: number, p: number, rng: Rng, id: string): CtCandidate[] {
  const out: CtCandidate[] = [];
  const used = new Set<number>();
  for (let tries = 0; out.length < n; tries++) {
    if (tries > 1000 * n)
      throw new TrackLaunchError(
        'INVALID_SPEC',
        `synthetic CT: series ${id} cannot hold ${n} candidates in a ${dims.join('x')} volume`,
        { hint: 'Give a larger --volume or fewer --candidates.' },
      );
    const ijk = dims.map((d) => 2 + randInt(rng, d - 4)) as Vec3;
    const key = ijk[0] + dims[0] * (ijk[1] + dims[1] * ijk[2]);
    if (used.has(key) || !inLung(dims, ...ijk)) continue;
    const positive = out.length < p;
    if (!positive && out.some((c) => c.positive && dist(c.ijk, ijk) < 3 + c.diameterMm!)) continue;
    used.add(key);
    if (positive) out.push({ ijk, positive, diameterMm: round(4 + 4 * rng(), 4) });
    else out.push({ ijk, positive, ...(rng() < 0.5 ? { vesselAxis: randInt(rng, 3) } : {}) });
  }
  return shuffleInPlace(out, rng); // so positives are not always first in their series
}

function csvTexts(series: CtSeries[], rng: Rng): { candidates: string; annotations: string } {
  const cand = [CANDIDATE_COLUMNS.join(',')];
  const ann = [ANNOTATION_COLUMNS.join(',')];
  for (const s of series)
    for (const c of s.candidates) {
      const xyz = worldOf(s, c.ijk);
      cand.push(csvRecord([s.id, ...xyz.map((v) => v.toFixed(3)), c.positive ? '1' : '0']));
      if (c.positive) {
        const jit = xyz.map((v) => (v + 0.5 * (rng() - 0.5)).toFixed(3));
        ann.push(csvRecord([s.id, ...jit, c.diameterMm!.toFixed(4)]));
      }
    }
  return { candidates: cand.join('\n') + '\n', annotations: ann.join('\n') + '\n' };
}

const round = (x: number, digits: number) => Number(x.toFixed(digits));
const dist = (a: Vec3, b: Vec3) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
