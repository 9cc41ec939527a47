// For the benchmark suite: shard a full-size synthetic LUNA16 candidates.csv (551,065 rows, 888
// series, 1,351 positives) and say how long sharding took (the data generation is not timed).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { shardFiles, ShardResult } from '../data/shard';
import { LUNA16_SHAPE, syntheticLuna } from '../data/synthetic';

export interface ShardBenchResult {
  rows: number;
  worldSize: number;
  /** Wall time of shardFiles (read, parse, check, plan, write, hash) in milliseconds. */
  ms: number;
  result: ShardResult;
}

export function benchShardFullSize(
  opts: { worldSize?: number; dir?: string; seed?: number } = {},
): ShardBenchResult {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tl-shard-bench-'));
  const data = syntheticLuna({ ...LUNA16_SHAPE, seed: opts.seed ?? 0 });
  const candidates = path.join(dir, 'candidates.csv');
  const annotations = path.join(dir, 'annotations.csv');
  fs.writeFileSync(candidates, data.candidates);
  fs.writeFileSync(annotations, data.annotations);
  const worldSize = opts.worldSize ?? 8;
  const t0 = process.hrtime.bigint();
  const result = shardFiles({
    candidates,
    annotations,
    worldSize,
    outDir: path.join(dir, 'shards'),
    seed: opts.seed ?? 0,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { rows: LUNA16_SHAPE.candidates, worldSize, ms, result };
}
