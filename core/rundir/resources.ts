// logs/node-<host>.resources.jsonl: the node samples the sampler appends (docs/cluster.md), listed
// and read here; parsing (parseResources) is pure, in core/resource-samples.ts.
import * as path from 'path';
import { parseResources, RESOURCES_FILE, type ResourceSample } from '../resource-samples';
import { runPaths } from './layout';
import { readBounded, listDir } from './safe-fs';

/** Far above a sampler's output for the longest job (a few hundred bytes per sample). */
export const RESOURCES_LIMIT = 256 << 20;

/** Every node's resources file, hosts sorted. */
export function listNodeResourceFiles(runDir: string): { host: string; file: string }[] {
  const logs = runPaths(runDir).logsDir;
  return listDir(runDir, logs)
    .filter((n) => RESOURCES_FILE.test(n))
    .sort()
    .map((n) => ({ host: RESOURCES_FILE.exec(n)![1], file: path.join(logs, n) }));
}

/** Every node's samples, hosts sorted; a torn last line (a job still running) is skipped. */
export function readNodeResources(runDir: string): { host: string; samples: ResourceSample[] }[] {
  return listNodeResourceFiles(runDir).map(({ host, file }) => ({
    host,
    samples: parseResources(
      (readBounded(runDir, file, RESOURCES_LIMIT) ?? Buffer.alloc(0)).toString('utf8'),
      file,
    ),
  }));
}
