// What `submit --stage DIR` copies to each node from a shard directory: the manifest, the node's ranks' shard
// files and (with --data-dir) the series files they read, each once per node; checked before submitting.
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError, type ErrorCode } from '../core';
import { MANIFEST_NAME, ShardManifest, readShardManifest, shardFilesOf, verifyShardDir } from './manifest';

export interface NodeStage {
  node: number;
  ranks: number[];
  /** Files and bytes copied to this node: manifest, shard files, series files. */
  files: number;
  bytes: number;
  dataFiles: number;
  dataBytes: number;
}

export interface StagePlan {
  /** Where the series files are read from (the manifest's data.dir); absent for shards without --data-dir. */
  dataDir?: string;
  nodes: NodeStage[];
  /** Every rank on one machine (the local executor). */
  all: { files: number; bytes: number };
}

export interface StageLayout {
  nodes: number;
  tasksPerNode: number;
}

/** Pure: the per-node plan from the manifest and the size of every file (shard files by name, series files by data path). */
function planNodeStaging(
  m: ShardManifest,
  layout: StageLayout,
  shardBytes: ReadonlyMap<string, number>,
  dataBytes: ReadonlyMap<string, number>,
): StagePlan {
  const count = (ranks: number[]) => {
    const shard = shardFilesOf(m, ranks);
    const data = [...new Set(m.ranks.filter((r) => ranks.includes(r.rank)).flatMap(dataFilesOf))];
    const db = data.reduce((n, f) => n + (dataBytes.get(f) ?? 0), 0);
    return {
      files: shard.length + data.length,
      bytes: shard.reduce((n, f) => n + (shardBytes.get(f) ?? 0), 0) + db,
      dataFiles: data.length,
      dataBytes: db,
    };
  };
  const T = layout.tasksPerNode;
  const nodes = Array.from({ length: layout.nodes }, (_, node) => {
    const ranks = Array.from({ length: T }, (_, t) => node * T + t);
    return { node, ranks, ...count(ranks) };
  });
  const all = count(m.ranks.map((r) => r.rank));
  return { ...(m.data ? { dataDir: m.data.dir } : {}), nodes, all: { files: all.files, bytes: all.bytes } };
}

const dataFilesOf = (r: ShardManifest['ranks'][number]) => [
  ...(r.train.data_files ?? []),
  ...(r.val.data_files ?? []),
];

/** The staging plan of `dir` for this layout; undefined when `dir` is not a shard directory (copied whole). */
export function planStaging(dir: string, layout: StageLayout): StagePlan | undefined {
  if (
    !fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() ||
    !fs.existsSync(path.join(dir, MANIFEST_NAME))
  )
    return undefined;
  const m = readShardManifest(dir);
  const world = layout.nodes * layout.tasksPerNode;
  if (m.world_size !== world) {
    const what = `sharded for ${m.world_size} rank(s) (manifest.json), but this job has ${world} (${layout.nodes} node(s) x ${layout.tasksPerNode} task(s))`;
    throw refused('INVALID_SPEC', dir, what, {
      hint: `Shard again with \`track-launch data shard --world-size ${world}\`, or submit ${m.world_size} ranks.`,
    });
  }
  const problems = verifyShardDir(dir);
  if (problems.length)
    throw refused('INVALID_SPEC', dir, problems.slice(0, 3).join('; '), {
      hint: 'The shard directory changed since `data shard` wrote it: shard again.',
      details: { problems },
    });
  const shardBytes = new Map(shardFilesOf(m).map((f) => [f, fs.statSync(path.join(dir, f)).size]));
  return planNodeStaging(m, layout, shardBytes, m.data ? checkDataFiles(dir, m) : new Map());
}

/** An error about `--stage dir`. */
const refused = (
  code: ErrorCode,
  dir: string,
  what: string,
  opts: { hint?: string; details?: Record<string, unknown> } = {},
) => new TrackLaunchError(code, `--stage ${dir}: ${what}`, opts);
const CHANGED = { hint: 'The data directory changed since sharding: shard again.' };

/** The data directory must be visible here, hold every listed file with the bytes the manifest recorded. */
function checkDataFiles(dir: string, m: ShardManifest): Map<string, number> {
  const data = m.data!.dir;
  if (!fs.statSync(data, { throwIfNoEntry: false })?.isDirectory())
    throw refused(
      'NOT_FOUND',
      dir,
      `the data directory ${data} (manifest.json) is not visible on this machine`,
      {
        hint: 'Each node copies its series files from there: use a path on the shared filesystem, or shard again with --data-dir where the data is.',
      },
    );
  const sizes = new Map<string, number>();
  const shardNames = new Set(shardFilesOf(m));
  for (const r of m.ranks) {
    if (!r.data_list)
      throw refused('INVALID_SPEC', dir, `manifest.json has no rank-${r.rank}.data-files.txt`, {
        hint: 'Shard again with this track-launch (`data shard --data-dir`): it writes the per-rank file lists.',
      });
    for (const sp of [r.train, r.val]) {
      let bytes = 0;
      for (const f of sp.data_files ?? []) {
        if (shardNames.has(f)) throw refused('INVALID_SPEC', dir, `series file ${f} has a shard file's name`);
        const st = fs.statSync(path.join(data, f), { throwIfNoEntry: false });
        if (!st?.isFile())
          throw refused('NOT_FOUND', dir, `${path.join(data, f)} (rank ${r.rank}) is missing`, CHANGED);
        sizes.set(f, st.size);
        bytes += st.size;
      }
      if (sp.data_bytes !== undefined && bytes !== sp.data_bytes) {
        const what = `rank ${r.rank}'s series files hold ${bytes} bytes, manifest.json says ${sp.data_bytes}`;
        throw refused('INVALID_SPEC', dir, what, CHANGED);
      }
    }
  }
  return sizes;
}
