// shardFiles end to end on real files: synthetic LUNA-shaped CSVs in, shards read back and checked
// against the input: disjoint, complete, series-local, validation by series, positives balanced,
// checksums, deterministic. Includes the full LUNA16 size (551,065 rows; not timed here: see
// benchShardFullSize for the benchmark suite).
import fc from 'fast-check';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseCsv } from './helpers';
import { LunaTable, parseCandidates } from '../../../data/luna-table';
import { readShardManifest, sha256, verifyShardDir, shardFilesOf } from '../../../data/manifest';
import { shardFiles } from '../../../data/shard';
import { LUNA16_SHAPE, syntheticLuna } from '../../../data/synthetic';
import { TrackLaunchError } from '../../../core/errors';

jest.setTimeout(240_000);

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tl-shard-'));

function writeInputs(dir: string, d: { candidates: string; annotations: string }) {
  const candidates = path.join(dir, 'candidates.csv');
  const annotations = path.join(dir, 'annotations.csv');
  fs.writeFileSync(candidates, d.candidates);
  fs.writeFileSync(annotations, d.annotations);
  return { candidates, annotations };
}

interface Source {
  table: LunaTable;
  annotations: string[][];
}

/** The input, parsed once (the full-size file takes seconds). */
const sourceOf = (candidates: string, annotations: string): Source => ({
  table: parseCandidates(candidates),
  annotations: parseCsv(annotations).slice(1),
});

/**
 * Reads every shard back and checks the promises against the input: checksums, disjoint, complete,
 * series-local, validation by series (no series in both splits), annotations with their series,
 * positives balanced within the manifest's bound. Returns the split/rank of every series.
 */
function checkShards(source: Source, out: string, worldSize: number): Map<string, string> {
  const m = readShardManifest(out);
  expect(m.world_size).toBe(worldSize);
  expect(verifyShardDir(out)).toEqual([]);
  const src = source.table;
  const srcAnn = source.annotations;
  const seen = new Map<string, number>(); // row text -> times seen in shards
  const where = new Map<string, string>(); // series -> split/rank
  const annSeen: string[][] = [];
  for (const r of m.ranks) {
    for (const split of ['train', 'val'] as const) {
      const e = r[split];
      const text = fs.readFileSync(path.join(out, e.file), 'utf8');
      expect(sha256(text)).toBe(e.sha256);
      const t = parseCandidates(text, e.file);
      expect(t.header).toBe(src.header); // the input's columns, as they were
      expect(t.rows).toHaveLength(e.rows);
      expect(Array.from(t.positive).reduce((a, b) => a + b, 0)).toBe(e.positives);
      expect([...t.seriesIds].sort()).toEqual(e.series.filter((s) => t.seriesIds.includes(s)).sort());
      for (const row of t.rows) seen.set(row, (seen.get(row) ?? 0) + 1);
      for (const s of t.seriesIds) {
        const here = `${split}/${r.rank}`;
        expect(where.get(s) ?? here).toBe(here); // series-local, and no series in both splits
        where.set(s, here);
      }
      if (e.annotations) {
        const a = parseCsv(fs.readFileSync(path.join(out, e.annotations.file), 'utf8')).slice(1);
        for (const row of a) {
          expect(where.get(row[0])).toBe(`${split}/${r.rank}`); // annotations travel with their series
          annSeen.push(row);
        }
      }
    }
    expect(r.train.rows).toBeGreaterThan(0);
  }
  // Complete and disjoint: every input row exactly once.
  expect(seen.size).toBe(src.rows.length);
  const notOnce = src.rows.filter((row) => seen.get(row) !== 1);
  expect(notOnce).toEqual([]);
  expect(annSeen.length).toBe(srcAnn.length);
  // Positives balanced as promised.
  for (const split of ['train', 'val'] as const) {
    const b = m.balance[split];
    const ps = m.ranks.map((r) => r[split].positives);
    expect(Math.max(...ps) - Math.min(...ps)).toBeLessThanOrEqual(b.bound);
    if (b.withinOneGuaranteed) expect(Math.max(...ps) - Math.min(...ps)).toBeLessThanOrEqual(1);
  }
  return where;
}

describe('shardFiles on synthetic LUNA-shaped CSVs', () => {
  it('small inputs (property): disjoint, complete, series-local, balanced, deterministic', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }).chain((series) =>
          fc.record({
            series: fc.constant(series),
            extra: fc.integer({ min: 0, max: 400 }),
            positives: fc.integer({ min: 0, max: series * 3 }),
            worldSize: fc.integer({ min: 1, max: Math.max(1, Math.floor(series / 2)) }),
            seed: fc.integer({ min: 0, max: 1000 }),
            valFraction: fc.constantFrom(0, 0.1, 0.3),
          }),
        ),
        (c) => {
          const dir = tmp();
          const d = syntheticLuna({
            series: c.series,
            candidates: c.series + c.positives + c.extra,
            positives: c.positives,
            seed: c.seed,
          });
          const inp = writeInputs(dir, d);
          const opts = { ...inp, worldSize: c.worldSize, seed: c.seed, valFraction: c.valFraction };
          let r;
          try {
            r = shardFiles({ ...opts, outDir: path.join(dir, 'a') });
          } catch (e) {
            // Only refusal allowed: validation left fewer training series than ranks.
            expect((e as TrackLaunchError).message).toMatch(/^--val-fraction: .* training series for/);
            return;
          }
          checkShards(sourceOf(d.candidates, d.annotations), r.outDir, c.worldSize);
          const again = shardFiles({ ...opts, outDir: path.join(dir, 'b') });
          expect(fs.readFileSync(again.manifestPath, 'utf8')).toBe(fs.readFileSync(r.manifestPath, 'utf8'));
          fs.rmSync(dir, { recursive: true, force: true });
        },
      ),
      { numRuns: 40 },
    );
  });
});

/** Rewrites one shard file with `edit` applied to its rows, and its manifest entry to match (so only checkShards can tell). */
function editShard(
  out: string,
  rank: number,
  split: 'train' | 'val',
  edit: (rows: string[]) => string[],
): void {
  const mPath = path.join(out, 'manifest.json');
  const m = JSON.parse(fs.readFileSync(mPath, 'utf8'));
  const e = m.ranks[rank][split];
  const t = parseCandidates(fs.readFileSync(path.join(out, e.file), 'utf8'), e.file);
  const rows = edit([...t.rows]);
  const text = [t.header, ...rows].map((l) => `${l}\n`).join('');
  const back = parseCandidates(text, e.file);
  Object.assign(e, {
    bytes: Buffer.byteLength(text),
    sha256: sha256(text),
    rows: rows.length,
    positives: Array.from(back.positive).reduce((a, b) => a + b, 0),
    series: [...new Set([...e.series, ...back.seriesIds])].sort(),
  });
  fs.writeFileSync(path.join(out, e.file), text);
  fs.writeFileSync(mPath, JSON.stringify(m, null, 2));
}

describe('checkShards itself', () => {
  // Candidates only: a moved series leaves no annotations behind.
  const d = syntheticLuna({ series: 12, candidates: 600, positives: 30, seed: 5 });
  const source = sourceOf(d.candidates, 'seriesuid,coordX,coordY,coordZ,diameter_mm\n');
  const fresh = () => {
    const dir = tmp();
    return shardFiles({
      candidates: writeInputs(dir, d).candidates,
      worldSize: 3,
      seed: 2,
      valFraction: 0,
      outDir: path.join(dir, 'o'),
    }).outDir;
  };
  const seriesOf = (row: string) => row.slice(0, row.indexOf(','));

  it('passes on shards as written, fails on shards that break a promise', () => {
    expect(() => checkShards(source, fresh(), 3)).not.toThrow();
    // Not series-local: one row of a rank-0 series moved to rank 1.
    let out = fresh();
    let moved: string[] = [];
    editShard(out, 0, 'train', (rows) => {
      moved = rows.slice(0, 1);
      return rows.slice(1);
    });
    editShard(out, 1, 'train', (rows) => [...rows, ...moved]);
    expect(() => checkShards(source, out, 3)).toThrow(/expect\(received\)/);
    // Not disjoint: a row in two shards (a file cannot hold it twice: the parser refuses duplicates).
    out = fresh();
    const first = parseCandidates(fs.readFileSync(path.join(out, 'rank-0.train.csv'), 'utf8')).rows[0];
    editShard(out, 2, 'train', (rows) => [...rows, first]);
    expect(() => checkShards(source, out, 3)).toThrow(/expect\(received\)/);
    // Not complete: a row dropped.
    out = fresh();
    editShard(out, 1, 'train', (rows) => rows.slice(1));
    expect(() => checkShards(source, out, 3)).toThrow(/expect\(received\)/);
    // Positives out of balance: a whole series with positives moved (still series-local and complete).
    out = fresh();
    const m = readShardManifest(out);
    const rich = parseCandidates(fs.readFileSync(path.join(out, m.ranks[0].train.file), 'utf8'));
    const counts = new Map<string, number>();
    rich.rows.forEach((r, i) => counts.set(seriesOf(r), (counts.get(seriesOf(r)) ?? 0) + rich.positive[i]));
    const [series, pos] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
    const ps = m.ranks.map((r) => r.train.positives);
    ps[0] -= pos;
    ps[1] += pos;
    expect(Math.max(...ps) - Math.min(...ps)).toBeGreaterThan(m.balance.train.bound); // the case is a real break
    let taken: string[] = [];
    editShard(out, 0, 'train', (rows) => {
      taken = rows.filter((r) => seriesOf(r) === series);
      return rows.filter((r) => seriesOf(r) !== series);
    });
    editShard(out, 1, 'train', (rows) => [...rows, ...taken]);
    expect(() => checkShards(source, out, 3)).toThrow(/expect\(received\)\.toBeLessThanOrEqual/);
  });
});

describe('shardFiles at the full LUNA16 size (551,065 rows, 888 series, 1,351 positives)', () => {
  let dir = '';
  let inp: { candidates: string; annotations: string };
  let source: Source;
  let candidatesSha = '';
  beforeAll(() => {
    dir = tmp();
    const d = syntheticLuna({ ...LUNA16_SHAPE, seed: 7 });
    inp = writeInputs(dir, d);
    source = sourceOf(d.candidates, d.annotations);
    candidatesSha = sha256(d.candidates);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  // 888 series: 12 ranks divide them evenly, 5 and 7 do not.
  it.each([
    [12, 7],
    [5, 99],
    [7, 3],
  ])(
    'world size %i, seed %i: disjoint, complete, series-local, validation by series, positives within one, deterministic',
    (worldSize, seed) => {
      const out = path.join(dir, `out-${worldSize}`);
      const r = shardFiles({ ...inp, worldSize, seed, outDir: out });
      expect(r.manifest.inputs.candidates).toMatchObject({
        rows: 551_065,
        series: 888,
        positives: 1_351,
        sha256: candidatesSha,
      });
      const where = checkShards(source, out, worldSize);
      expect(where.size).toBe(888);
      // Read back (checkShards verified the manifest's counts against the files): positives within one.
      for (const split of ['train', 'val'] as const) {
        const ps = r.manifest.ranks.map((x) => x[split].positives);
        expect(Math.max(...ps) - Math.min(...ps)).toBeLessThanOrEqual(1);
      }
      expect(r.manifest.totals.train.rows + r.manifest.totals.val.rows).toBe(551_065);
      // Candidates: every rank within 2% of the mean.
      const mean = r.manifest.totals.train.rows / worldSize;
      for (const x of r.manifest.ranks) expect(Math.abs(x.train.rows - mean) / mean).toBeLessThan(0.02);
      // Validation by series: about 10% of positives and candidates, whole series only.
      const valSeries = [...where.values()].filter((w) => w.startsWith('val/')).length;
      expect(valSeries).toBeGreaterThan(0);
      expect(r.manifest.totals.val.positives).toBe(Math.round(0.1 * 1351));
      expect(Math.abs(r.manifest.totals.val.rows / 551_065 - 0.1)).toBeLessThan(0.01);
      // Deterministic: the same inputs and seed give the same manifest, hence the same files.
      const again = shardFiles({ ...inp, worldSize, seed, outDir: path.join(dir, `again-${worldSize}`) });
      expect(fs.readFileSync(again.manifestPath, 'utf8')).toBe(fs.readFileSync(r.manifestPath, 'utf8'));
      expect(verifyShardDir(again.outDir)).toEqual([]);
      fs.rmSync(out, { recursive: true, force: true });
      fs.rmSync(again.outDir, { recursive: true, force: true });
    },
  );
});

describe('shardFiles refusals and outputs', () => {
  const small = syntheticLuna({ series: 6, candidates: 200, positives: 8, seed: 1 });

  it('refuses bad options and inputs with the option or line named', () => {
    const dir = tmp();
    const inp = writeInputs(dir, small);
    const out = path.join(dir, 'out');
    const msg = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return `${(e as TrackLaunchError).code}: ${(e as Error).message}`;
      }
      return 'no error';
    };
    expect(msg(() => shardFiles({ ...inp, worldSize: 7, outDir: out }))).toBe(
      'INVALID_SPEC: --world-size: 7 is not valid; at most 6, the number of series in candidates.csv: each series goes whole to one rank, and every rank needs one',
    );
    expect(msg(() => shardFiles({ ...inp, worldSize: 0, outDir: out }))).toMatch(
      /^INVALID_SPEC: --world-size: 0 is not valid/,
    );
    expect(msg(() => shardFiles({ ...inp, worldSize: 2, valFraction: 1, outDir: out }))).toMatch(
      /^INVALID_SPEC: --val-fraction: 1 is not valid/,
    );
    expect(msg(() => shardFiles({ ...inp, worldSize: 6, valFraction: 0.5, outDir: out }))).toMatch(
      /^INVALID_SPEC: --val-fraction: 0.5 is not valid; smaller: it leaves \d training series for 6 ranks/,
    );
    expect(msg(() => shardFiles({ ...inp, worldSize: 1, seed: 1.5, outDir: out }))).toMatch(
      /^INVALID_SPEC: --seed: 1.5/,
    );
    expect(
      msg(() => shardFiles({ candidates: path.join(dir, 'nope.csv'), worldSize: 1, outDir: out })),
    ).toMatch(/^NOT_FOUND: --candidates: .*nope\.csv does not exist/);
    fs.writeFileSync(
      path.join(dir, 'bad.csv'),
      'seriesuid,coordX,coordY,coordZ,class\na,1,2,3,0\na,1,2,3,0\n',
    );
    expect(msg(() => shardFiles({ candidates: path.join(dir, 'bad.csv'), worldSize: 1, outDir: out }))).toBe(
      'INVALID_SPEC: bad.csv line 3: duplicate row: the same seriesuid and coordinates as line 2',
    );
    expect(fs.existsSync(out)).toBe(false); // nothing written on a refusal
    fs.mkdirSync(path.join(dir, 'busy'));
    fs.writeFileSync(path.join(dir, 'busy', 'notes.txt'), 'x');
    expect(msg(() => shardFiles({ ...inp, worldSize: 2, outDir: path.join(dir, 'busy') }))).toMatch(
      /^INVALID_SPEC: --out: .*busy holds other files \(notes\.txt\)/,
    );
  });

  it('rewrites an earlier shard directory without leftovers, keeps CRLF input rows intact', () => {
    const dir = tmp();
    const crlf = small.candidates.replace(/\n/g, '\r\n');
    const inp = writeInputs(dir, { candidates: crlf, annotations: small.annotations });
    const out = path.join(dir, 'out');
    shardFiles({ ...inp, worldSize: 4, outDir: out });
    shardFiles({ ...inp, worldSize: 2, outDir: out });
    const m = readShardManifest(out);
    expect(fs.readdirSync(out).sort()).toEqual(shardFilesOf(m).sort());
    expect(shardFilesOf(m, [1])).toEqual([
      'manifest.json',
      'rank-1.train.csv',
      'rank-1.train.annotations.csv',
      'rank-1.val.csv',
      'rank-1.val.annotations.csv',
    ]);
    checkShards(sourceOf(small.candidates, small.annotations), out, 2);
  });

  it('verifyShardDir finds a changed file; readShardManifest refuses other versions', () => {
    const dir = tmp();
    const inp = writeInputs(dir, small);
    const out = path.join(dir, 'out');
    shardFiles({ ...inp, worldSize: 2, outDir: out, valFraction: 0 });
    fs.appendFileSync(path.join(out, 'rank-1.train.csv'), 'x\n');
    expect(verifyShardDir(out)).toEqual([
      expect.stringMatching(/^rank-1\.train\.csv: \d+ bytes, the manifest says \d+$/),
    ]);
    const m = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    fs.writeFileSync(path.join(out, 'manifest.json'), JSON.stringify({ ...m, version: 2 }));
    expect(() => readShardManifest(out)).toThrow(/has version 2; this track-launch reads version 1/);
  });

  it('with --data-dir: bytes and files per rank from <seriesuid>.mhd/.raw', () => {
    const dir = tmp();
    const inp = writeInputs(dir, small);
    const data = path.join(dir, 'luna');
    const ids = small.series.map((s) => s.id);
    fs.mkdirSync(path.join(data, 'subset0'), { recursive: true });
    ids.slice(0, 5).forEach((id, k) => {
      fs.writeFileSync(path.join(data, 'subset0', `${id}.mhd`), 'x'.repeat(10));
      fs.writeFileSync(path.join(data, 'subset0', `${id}.raw`), 'y'.repeat(100 * (k + 1)));
    });
    fs.writeFileSync(path.join(data, 'subset0', 'README'), 'not a series');
    const r = shardFiles({
      ...inp,
      worldSize: 2,
      outDir: path.join(dir, 'out'),
      dataDir: data,
      valFraction: 0,
    });
    expect(r.manifest.data).toEqual({ dir: data, bytes: 50 + 1500, series_without_files: 1 });
    const all = r.manifest.ranks.flatMap((x) => x.train.data_files ?? []);
    expect(all.sort()).toEqual(
      ids
        .slice(0, 5)
        .flatMap((id) => [`subset0/${id}.mhd`, `subset0/${id}.raw`])
        .sort(),
    );
    expect(r.manifest.ranks.reduce((a, x) => a + (x.train.data_bytes ?? 0), 0)).toBe(1550);
  });
});
