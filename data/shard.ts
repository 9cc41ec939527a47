// `data shard`: candidates.csv (+ annotations.csv) -> per-rank train and validation shards and manifest.json;
// each file is written under a temporary name and renamed, manifest.json last.
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError, invalidOption } from '../core';
import { SPLITS, SeriesStat, Split, planShards } from './assign';
import { positiveBalance } from './balance';
import { indexSeriesFiles } from './data-files';
import { LunaTable, parseAnnotations, parseCandidates } from './luna-table';
import {
  FileEntry,
  InputEntry,
  MANIFEST_NAME,
  RankShard,
  ShardManifest,
  SplitShard,
  sha256,
} from './manifest';

export interface ShardOptions {
  candidates: string;
  annotations?: string;
  worldSize: number;
  outDir: string;
  /** Fraction of the positives (and candidates) in validation series; default 0.1. */
  valFraction?: number;
  seed?: number;
  /** Where the series' CT files are (for bytes per rank); optional. */
  dataDir?: string;
}

export interface ShardResult {
  outDir: string;
  manifestPath: string;
  manifest: ShardManifest;
}

export const DEFAULT_VAL_FRACTION = 0.1;
const OUR_FILE = /^(rank-\d+\.((train|val)(\.annotations)?\.csv|data-files\.txt)|manifest\.json)$/;

function shardName(rank: number, split: Split, annotations = false): string {
  return `rank-${rank}.${split}${annotations ? '.annotations' : ''}.csv`;
}

function checkShardOptions(o: ShardOptions): { worldSize: number; valFraction: number; seed: number } {
  const worldSize = o.worldSize;
  if (!Number.isInteger(worldSize) || worldSize < 1 || worldSize > 1_000_000) {
    throw invalidOption('world-size', worldSize, 'use a whole number of ranks, at least 1');
  }
  const valFraction = o.valFraction ?? DEFAULT_VAL_FRACTION;
  if (!(typeof valFraction === 'number' && valFraction >= 0 && valFraction < 1)) {
    throw invalidOption(
      'val-fraction',
      valFraction,
      'use a number from 0 (no validation) up to, not including, 1',
    );
  }
  const seed = o.seed ?? 0;
  if (!Number.isSafeInteger(seed)) throw invalidOption('seed', seed, 'use a whole number');
  return { worldSize, valFraction, seed };
}

function readTable(file: string, option: string, parse: (text: string, name: string) => LunaTable) {
  let data: Buffer;
  try {
    data = fs.readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new TrackLaunchError('NOT_FOUND', `--${option}: ${file} does not exist`, {
        details: { option, file },
      });
    throw new TrackLaunchError('INVALID_SPEC', `--${option}: cannot read ${file}: ${(e as Error).message}`, {
      details: { option, file },
    });
  }
  const table = parse(data.toString('utf8'), path.basename(file));
  const input: InputEntry = {
    name: path.basename(file),
    bytes: data.length,
    sha256: sha256(data),
    rows: table.rows.length,
    series: table.seriesIds.length,
  };
  return { table, input };
}

/** Creates `dir`, or clears an earlier shard run's files from it; refuses a directory with other files. */
function prepareOutDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const names = fs.readdirSync(dir);
  const foreign = names.filter((n) => !OUR_FILE.test(n) && !n.startsWith('.tmp-'));
  if (foreign.length) {
    throw new TrackLaunchError(
      'INVALID_SPEC',
      `--out: ${dir} holds other files (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', ...' : ''})`,
      {
        hint: 'Give an empty or new directory, or one written by `track-launch data shard` before.',
      },
    );
  }
  for (const n of names) fs.rmSync(path.join(dir, n), { force: true });
}

function writeFile(dir: string, name: string, text: string, rows: number): FileEntry {
  const tmp = path.join(dir, `.tmp-${process.pid}-${name}`);
  const data = Buffer.from(text, 'utf8');
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, path.join(dir, name));
  return { file: name, bytes: data.length, sha256: sha256(data), rows };
}

export function shardFiles(opts: ShardOptions): ShardResult {
  const { worldSize, valFraction, seed } = checkShardOptions(opts);
  const { table: cand, input: candInput } = readTable(opts.candidates, 'candidates', parseCandidates);
  const stats: SeriesStat[] = cand.seriesIds.map((id) => ({ id, candidates: 0, positives: 0 }));
  for (let i = 0; i < cand.rows.length; i++) {
    const s = stats[cand.seriesOfRow[i]];
    s.candidates++;
    s.positives += cand.positive[i];
  }
  if (worldSize > stats.length) {
    throw invalidOption(
      'world-size',
      worldSize,
      `at most ${stats.length}, the number of series in ${path.basename(opts.candidates)}: each series goes whole to one rank, and every rank needs one`,
    );
  }
  const annotations =
    opts.annotations === undefined ? undefined : readTable(opts.annotations, 'annotations', parseAnnotations);
  const ann = annotations?.table;

  const plan = planShards(stats, { worldSize, valFraction, seed });
  const trainSeries = plan.perRank.train.reduce((a, t) => a + t.series, 0);
  if (trainSeries < worldSize) {
    throw invalidOption(
      'val-fraction',
      valFraction,
      `smaller: it leaves ${trainSeries} training series for ${worldSize} ranks, and every rank needs one`,
    );
  }

  // Row lists per (split, rank), input order kept.
  const bucketOf = (s: number) => plan.val[s] * worldSize + plan.rank[s]; // series -> (split, rank)
  const rowsOf: number[][] = Array.from({ length: 2 * worldSize }, () => []);
  for (let i = 0; i < cand.rows.length; i++) rowsOf[bucketOf(cand.seriesOfRow[i])].push(i);
  const annOf: number[][] = Array.from({ length: 2 * worldSize }, () => []);
  let unmatched = 0;
  if (ann) {
    const index = new Map(cand.seriesIds.map((id, k) => [id, k]));
    for (let i = 0; i < ann.rows.length; i++) {
      const s = index.get(ann.seriesIds[ann.seriesOfRow[i]]);
      if (s === undefined) unmatched++;
      else annOf[bucketOf(s)].push(i);
    }
  }
  const files =
    opts.dataDir === undefined ? undefined : indexSeriesFiles(opts.dataDir, new Set(cand.seriesIds));

  prepareOutDir(opts.outDir);
  const seriesOn: string[][] = Array.from({ length: 2 * worldSize }, () => []);
  stats.forEach((s, k) => seriesOn[bucketOf(k)].push(s.id));
  const ranks: RankShard[] = [];
  for (let r = 0; r < worldSize; r++) {
    const shard = (split: Split): SplitShard => {
      const b = (split === 'val' ? worldSize : 0) + r;
      const rows = rowsOf[b];
      const text = cand.header + '\n' + rows.map((i) => cand.rows[i] + '\n').join('');
      const entry: SplitShard = {
        ...writeFile(opts.outDir, shardName(r, split), text, rows.length),
        positives: plan.perRank[split][r].positives,
        series: seriesOn[b].sort(),
      };
      if (ann) {
        const a = annOf[b];
        entry.annotations = writeFile(
          opts.outDir,
          shardName(r, split, true),
          ann.header + '\n' + a.map((i) => ann.rows[i] + '\n').join(''),
          a.length,
        );
      }
      if (files) {
        entry.data_bytes = entry.series.reduce((n, id) => n + (files.get(id)?.bytes ?? 0), 0);
        entry.data_files = entry.series.flatMap((id) => files.get(id)?.files ?? []);
      }
      return entry;
    };
    const train = shard('train');
    const val = shard('val');
    ranks.push({ rank: r, train, val });
    if (files) {
      // rank-<R>.data-files.txt: the series files the rank reads, one path (relative to the data directory) a line
      const both = [...train.data_files!, ...val.data_files!];
      const text = [...new Set(both)]
        .sort()
        .map((f) => `${f}\n`)
        .join('');
      ranks[r].data_list = writeFile(opts.outDir, `rank-${r}.data-files.txt`, text, both.length);
    }
  }

  const members = (split: Split) =>
    stats.map((_, k) => k).filter((k) => plan.val[k] === (split === 'val' ? 1 : 0));
  const totals = {} as ShardManifest['totals'];
  const balance = {} as ShardManifest['balance'];
  for (const split of SPLITS) {
    const t = plan.perRank[split];
    totals[split] = {
      rows: t.reduce((n, x) => n + x.rows, 0),
      positives: t.reduce((n, x) => n + x.positives, 0),
      series: t.reduce((n, x) => n + x.series, 0),
    };
    balance[split] = {
      ...positiveBalance(stats, members(split), t),
      rows_min: Math.min(...t.map((x) => x.rows)),
      rows_max: Math.max(...t.map((x) => x.rows)),
    };
  }
  const manifest: ShardManifest = {
    version: 1,
    kind: 'track-launch-data-shards',
    world_size: worldSize,
    seed,
    val_fraction: valFraction,
    inputs: {
      candidates: { ...candInput, positives: stats.reduce((n, s) => n + s.positives, 0) },
      ...(annotations ? { annotations: { ...annotations.input, unmatched_rows: unmatched } } : {}),
    },
    ...(files
      ? {
          data: {
            dir: path.resolve(opts.dataDir!),
            bytes: [...files.values()].reduce((n, f) => n + f.bytes, 0),
            series_without_files: stats.filter((s) => !files.has(s.id)).length,
          },
        }
      : {}),
    totals,
    balance,
    ranks,
  };
  const manifestPath = path.join(opts.outDir, MANIFEST_NAME);
  writeFile(opts.outDir, MANIFEST_NAME, JSON.stringify(manifest, null, 2) + '\n', 0);
  return { outDir: opts.outDir, manifestPath, manifest };
}
