// Effects: every logs/node-<host>.resources.jsonl of a run dir, parsed with the launcher's own reader
// (the one `status` uses), so the report and the efficiency summary read the same samples.
import { promises as fs } from 'fs';
import * as path from 'path';
import { parseResources, RESOURCES_FILE } from '../../core';
import { runPaths } from '../../core';
import type { NodeResources } from '../model';

/** Hosts sorted; a torn last line (a job still running) is skipped by parseResources. */
export async function readNodeResources(runDir: string): Promise<NodeResources[]> {
  const logs = runPaths(runDir).logsDir;
  let names: string[];
  try {
    names = (await fs.readdir(logs)).filter((n) => RESOURCES_FILE.test(n)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: NodeResources[] = [];
  for (const name of names) {
    const file = path.join(logs, name);
    out.push({
      host: RESOURCES_FILE.exec(name)![1],
      samples: parseResources(await fs.readFile(file, 'utf8'), file),
    });
  }
  return out;
}
