// Issue #8: sharding the full-size LUNA16 candidates.csv (551,065 rows; synthetic, same shape) into
// per-rank shards with benchShardFullSize (bench/shard-full-size.ts) (generation not timed). Median of runs.
import * as fs from 'fs';
import * as path from 'path';
import { benchShardFullSize } from './shard-full-size';
import { BenchOptions, log, machine, median, round, Target } from './common';

export async function benchShard(o: BenchOptions): Promise<{ result: unknown; targets: Target[] }> {
  const reps = o.quick ? 1 : 3;
  const ms: number[] = [];
  let rows = 0;
  for (let i = 0; i < reps; i++) {
    const dir = path.join(o.tmp, `shard-${i}`);
    fs.mkdirSync(dir, { recursive: true });
    const r = benchShardFullSize({ dir, worldSize: 8 });
    ms.push(r.ms);
    rows = r.rows;
    fs.rmSync(dir, { recursive: true, force: true });
    log(
      `shard: ${r.rows} rows into ${r.worldSize} shards in ${r.ms.toFixed(0)} ms (load ${machine().loadavg})`,
    );
  }
  const m = median(ms);
  return {
    result: {
      rows,
      world_size: 8,
      reps,
      median_ms: round(m),
      rows_per_s: round(rows / (m / 1000)),
      runs_ms: ms.map((x) => round(x)),
    },
    targets: [
      {
        what: `shard LUNA candidates.csv, ${rows} rows, 8 ranks`,
        target: 'under a few seconds (<= 3 s)',
        measured: `${(m / 1000).toFixed(2)} s`,
        met: m <= 3000,
      },
    ],
  };
}
