// manifest.json of `data shard`: inputs, settings and every file with its size and SHA-256 (docs/data.md).
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError } from '../core';
import type { Split } from './assign';
import type { PositiveBalance } from './balance';

export const MANIFEST_VERSION = 1;
export const MANIFEST_NAME = 'manifest.json';

export interface FileEntry {
  /** Relative to the shard directory. */
  file: string;
  bytes: number;
  sha256: string;
  rows: number;
}

export interface SplitShard extends FileEntry {
  positives: number;
  /** Series uids on this rank in this split, sorted. */
  series: string[];
  annotations?: FileEntry;
  /** With --data-dir: the bytes of this split's series files on this rank, and the files (relative to data_dir). */
  data_bytes?: number;
  data_files?: string[];
}

export interface RankShard {
  rank: number;
  train: SplitShard;
  val: SplitShard;
  /** With --data-dir: rank-<R>.data-files.txt, the rank's train and val series files, one per line (rows: files). */
  data_list?: FileEntry;
}

export interface InputEntry {
  name: string;
  bytes: number;
  sha256: string;
  rows: number;
  series: number;
  positives?: number;
  /** annotations.csv: rows whose series is not in candidates.csv (written to no shard). */
  unmatched_rows?: number;
}

export interface ShardManifest {
  version: 1;
  kind: 'track-launch-data-shards';
  world_size: number;
  seed: number;
  val_fraction: number;
  inputs: { candidates: InputEntry; annotations?: InputEntry };
  /** With --data-dir: where the series files are, and how many series have none. */
  data?: { dir: string; bytes: number; series_without_files: number };
  totals: Record<Split, { rows: number; positives: number; series: number }>;
  balance: Record<Split, PositiveBalance & { rows_min: number; rows_max: number }>;
  ranks: RankShard[];
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Reads and checks <dir>/manifest.json (version 1). */
export function readShardManifest(dir: string): ShardManifest {
  const file = path.join(dir, MANIFEST_NAME);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new TrackLaunchError(
      'NOT_FOUND',
      `${file} does not exist: is ${dir} a directory written by \`track-launch data shard\`?`,
      { cause: e },
    );
  }
  const bad = (what: string, hint?: string) =>
    new TrackLaunchError('INVALID_SPEC', `${file} ${what}`, { hint });
  let m: Partial<ShardManifest>;
  try {
    m = JSON.parse(text) as Partial<ShardManifest>;
  } catch (e) {
    throw bad(`is not JSON: ${(e as Error).message}`);
  }
  if (m.kind !== 'track-launch-data-shards')
    throw bad(`is not a shard manifest (kind ${JSON.stringify(m.kind)})`);
  if (m.version !== MANIFEST_VERSION)
    throw bad(
      `has version ${JSON.stringify(m.version)}; this track-launch reads version ${MANIFEST_VERSION}`,
      'Shard the data again with this version, or use the track-launch that wrote it.',
    );
  return m as ShardManifest;
}

/** The file entries of the given ranks (all by default): shards, their annotations, the data-file list. */
function entriesOf(m: ShardManifest, ranks?: readonly number[]): FileEntry[] {
  return m.ranks
    .filter((r) => !ranks || ranks.includes(r.rank))
    .flatMap((r) => [r.train, r.train.annotations, r.val, r.val.annotations, r.data_list])
    .filter((e): e is FileEntry => e !== undefined);
}

/** Every file of the given ranks (all ranks by default), relative to the shard directory, manifest first. */
export const shardFilesOf = (m: ShardManifest, ranks?: readonly number[]): string[] => [
  MANIFEST_NAME,
  ...entriesOf(m, ranks).map((e) => e.file),
];

/** The files of `ranks` (all by default) that differ from the manifest in size or SHA-256, as problems. */
export function verifyShardDir(dir: string, ranks?: readonly number[]): string[] {
  const m = readShardManifest(dir);
  const problems: string[] = [];
  for (const e of entriesOf(m, ranks)) {
    const f = path.join(dir, e.file);
    if (!fs.existsSync(f)) {
      problems.push(`${e.file}: missing`);
      continue;
    }
    const data = fs.readFileSync(f);
    if (data.length !== e.bytes)
      problems.push(`${e.file}: ${data.length} bytes, the manifest says ${e.bytes}`);
    else if (sha256(data) !== e.sha256) problems.push(`${e.file}: SHA-256 differs from the manifest`);
  }
  return problems;
}
