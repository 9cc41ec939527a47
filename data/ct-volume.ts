// One synthetic series as LUNA16 stores it: <uid>.mhd and little-endian int16 HU in <uid>.raw (x fastest):
// air, body, lungs, noise seeded by the uid, a nodule at each positive, a vessel through some negatives.
import * as os from 'os';
import { seededRng } from './rng';
import { CtSeries, Vec3, inLung } from './synthetic-ct';

/** The header LUNA16's files have. TransformMatrix is written as ITK reads it: the i-th triple is the
 *  direction of voxel axis i, a column of the direction matrix. */
export function mhdHeader(s: CtSeries): string {
  const d = s.direction;
  const columns = [0, 1, 2].flatMap((c) => [d[c], d[3 + c], d[6 + c]]);
  return [
    'ObjectType = Image',
    'NDims = 3',
    'BinaryData = True',
    'BinaryDataByteOrderMSB = False',
    'CompressedData = False',
    `TransformMatrix = ${columns.join(' ')}`,
    `Offset = ${s.origin.join(' ')}`,
    'CenterOfRotation = 0 0 0',
    'AnatomicalOrientation = RAI',
    `ElementSpacing = ${s.spacing.join(' ')}`,
    `DimSize = ${s.dims.join(' ')}`,
    'ElementType = MET_SHORT',
    `ElementDataFile = ${s.id}.raw`,
    '',
  ].join('\n');
}

const AIR_HU = -1000;
const TISSUE_HU = 40;
const LUNG_HU = -850;
const NODULE_HU = 60;

export function ctVoxels(s: CtSeries): Buffer {
  const [nx, ny, nz] = s.dims;
  const vol = new Int16Array(nx * ny * nz);
  const rng = seededRng(s.id, 'track-launch synthetic ct voxels');
  const noise = () => Math.round(40 * (rng() - 0.5));
  for (let k = 0, n = 0; k < nz; k++)
    for (let j = 0; j < ny; j++)
      for (let i = 0; i < nx; i++, n++) {
        const body = ((i - 0.5 * nx) / (0.45 * nx)) ** 2 + ((j - 0.5 * ny) / (0.4 * ny)) ** 2 <= 1;
        vol[n] = (!body ? AIR_HU : inLung(s.dims, i, j, k) ? LUNG_HU : TISSUE_HU) + noise();
      }
  for (const c of s.candidates) {
    if (c.positive) stamp(s, vol, c.ijk, c.diameterMm! / 2, noise);
    else if (c.vesselAxis !== undefined) tube(s, vol, c.ijk, c.vesselAxis, noise);
  }
  const buf = Buffer.from(vol.buffer, vol.byteOffset, vol.byteLength);
  return os.endianness() === 'LE' ? buf : buf.swap16();
}

/** Calls `visit` for each voxel within `reach` voxels (per axis) of `centre`, in file order, with its index. */
function eachVoxel(s: CtSeries, centre: Vec3, reach: number[], visit: (ijk: Vec3, n: number) => void) {
  const [nx, ny] = s.dims;
  const lo = centre.map((c, a) => Math.max(0, c - reach[a]));
  const hi = centre.map((c, a) => Math.min(s.dims[a] - 1, c + reach[a]));
  for (let k = lo[2]; k <= hi[2]; k++)
    for (let j = lo[1]; j <= hi[1]; j++)
      for (let i = lo[0]; i <= hi[0]; i++) visit([i, j, k], i + nx * (j + ny * k));
}

/** Squared distance in mm from `centre` over the axes `axes` (spacing differs per axis). */
const dist2 = (s: CtSeries, centre: Vec3, p: Vec3, axes = [0, 1, 2]) =>
  axes.reduce((t, a) => t + ((p[a] - centre[a]) * s.spacing[a]) ** 2, 0);

/** A nodule: every voxel within `radiusMm` of `centre`. */
function stamp(s: CtSeries, vol: Int16Array, centre: Vec3, radiusMm: number, noise: () => number) {
  const reach = s.spacing.map((sp) => Math.ceil(radiusMm / sp));
  eachVoxel(s, centre, reach, (p, n) => {
    if (dist2(s, centre, p) <= radiusMm * radiusMm) vol[n] = NODULE_HU + noise();
  });
}

/** A vessel: a tube of radius 1 mm along `axis`, 8 voxels either side of the candidate. */
function tube(s: CtSeries, vol: Int16Array, centre: Vec3, axis: number, noise: () => number) {
  const across = [0, 1, 2].filter((a) => a !== axis);
  const reach = [0, 1, 2].map((a) => (a === axis ? 8 : 2));
  eachVoxel(s, centre, reach, (p, n) => {
    if (dist2(s, centre, p, across) <= 1) vol[n] = TISSUE_HU + noise();
  });
}
