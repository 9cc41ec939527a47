// `data synth --ct`: LUNA16's layout and MetaImage format, checked with an independent header parser
// and world-to-voxel conversion; the example's Python reader (examples/luna/mhd.py, crops.py) reads
// the same voxels at the same candidates.
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseCsv } from './helpers';
import { writeSyntheticCt } from '../../../data/synthetic-ct-files';

const PYTHON = process.env.TRACK_LAUNCH_TEST_PYTHON ?? '/usr/bin/python3';
const OPTS = { series: 6, candidates: 120, positives: 12, volume: [32, 32, 24] as [number, number, number] };

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tl-ct-'));
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function treeHash(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) walk(r);
      else
        out[r] = createHash('sha256')
          .update(fs.readFileSync(path.join(dir, r)))
          .digest('hex');
    }
  };
  walk('');
  return out;
}

function header(file: string): Record<string, string> {
  return Object.fromEntries(
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes(' = '))
      .map((l) => l.split(' = ') as [string, string]),
  );
}

/** HU at a world point: TransformMatrix triple a is axis a's direction, so world - origin = sum_a t_a x idx_a x spacing_a. */
function huAt(mhd: string, xyz: number[]): number {
  const h = header(mhd);
  const nums = (k: string) => h[k].split(' ').map(Number);
  const [t, o, s, d] = [nums('TransformMatrix'), nums('Offset'), nums('ElementSpacing'), nums('DimSize')];
  const rel = xyz.map((v, i) => v - o[i]);
  // The axes are orthonormal: the index along axis a is the projection on its direction / spacing.
  const idx = [0, 1, 2].map((a) =>
    Math.round((t[3 * a] * rel[0] + t[3 * a + 1] * rel[1] + t[3 * a + 2] * rel[2]) / s[a]),
  );
  idx.forEach((v, a) => expect(v >= 0 && v < d[a]).toBe(true));
  const raw = fs.readFileSync(path.join(path.dirname(mhd), h.ElementDataFile));
  return raw.readInt16LE(2 * (idx[0] + d[0] * (idx[1] + d[1] * idx[2])));
}

describe('synthetic CT in the LUNA16 format', () => {
  const dir = tmp();
  dirs.push(dir);
  const w = writeSyntheticCt(dir, { ...OPTS, seed: 5 });
  const cand = parseCsv(fs.readFileSync(w.candidates, 'utf8'));
  const mhdOf = new Map<string, string>();
  for (const sub of fs.readdirSync(dir).filter((n) => n.startsWith('subset')))
    for (const f of fs.readdirSync(path.join(dir, sub)).filter((n) => n.endsWith('.mhd')))
      mhdOf.set(f.slice(0, -4), path.join(dir, sub, f));

  it('writes subset*/<uid>.mhd and .raw with a MetaImage header, and the CSVs', () => {
    expect(mhdOf.size).toBe(6);
    expect(cand[0]).toEqual(['seriesuid', 'coordX', 'coordY', 'coordZ', 'class']);
    expect(cand.length - 1).toBe(120);
    expect(cand.filter((r) => r[4] === '1')).toHaveLength(12);
    for (const [uid, mhd] of mhdOf) {
      const h = header(mhd);
      expect(h).toMatchObject({
        ObjectType: 'Image',
        NDims: '3',
        DimSize: '32 32 24',
        ElementType: 'MET_SHORT',
      });
      expect(h.ElementDataFile).toBe(`${uid}.raw`);
      expect(h.TransformMatrix.split(' ')).toHaveLength(9);
      expect(fs.statSync(path.join(path.dirname(mhd), `${uid}.raw`)).size).toBe(32 * 32 * 24 * 2);
    }
    const ann = parseCsv(fs.readFileSync(w.annotations, 'utf8'));
    expect(ann.length - 1).toBe(12);
  });

  it('puts a nodule (tissue-dense) at every positive and air in the corners', () => {
    for (const r of cand.slice(1).filter((x) => x[4] === '1'))
      expect(huAt(mhdOf.get(r[0])!, r.slice(1, 4).map(Number))).toBeGreaterThanOrEqual(30);
    const negatives = cand.slice(1).filter((x) => x[4] === '0');
    const hu = negatives.map((r) => huAt(mhdOf.get(r[0])!, r.slice(1, 4).map(Number)));
    expect(hu.filter((v) => v < -700).length).toBeGreaterThan(negatives.length / 4); // lung, no nodule
    for (const mhd of mhdOf.values()) {
      const raw = fs.readFileSync(mhd.replace(/\.mhd$/, '.raw'));
      expect(raw.readInt16LE(0)).toBeLessThan(-900);
    }
  });

  it('is deterministic from the seed', () => {
    const again = tmp();
    const other = tmp();
    dirs.push(again, other);
    writeSyntheticCt(again, { ...OPTS, seed: 5 });
    writeSyntheticCt(other, { ...OPTS, seed: 6 });
    expect(treeHash(again)).toEqual(treeHash(dir));
    expect(treeHash(other)['candidates.csv']).not.toBe(treeHash(dir)['candidates.csv']);
  });

  it("the example's reader crops the same voxels around each candidate (numpy memmap, book's getRawCandidate)", () => {
    const rows = cand.slice(1).map((r) => ({ mhd: mhdOf.get(r[0])!, xyz: r.slice(1, 4).map(Number) }));
    const script = [
      'import json, sys',
      `sys.path.insert(0, ${JSON.stringify(path.resolve('examples/luna'))})`,
      'from mhd import read_ct',
      'from crops import raw_candidate',
      'out = []',
      'for r in json.load(sys.stdin):',
      '    ct = read_ct(r["mhd"], use_sitk=False)',
      '    chunk, irc = raw_candidate(ct, r["xyz"], (8, 8, 8))',
      '    out.append([int(ct.hu_a[irc]), list(chunk.shape)])',
      'print(json.dumps(out))',
    ].join('\n');
    const got = JSON.parse(
      execFileSync(PYTHON, ['-c', script], { input: JSON.stringify(rows), encoding: 'utf8' }),
    );
    expect(got).toEqual(rows.map((r) => [huAt(r.mhd, r.xyz), [8, 8, 8]]));
  });
});
