// The spool stage for the parent run's system metrics: one stream per node file, whatever the
// number of ranks on the node, so each sample reaches MLflow once (docs/cluster.md). The run dir's samples
// are found by their files (logs/node-<host>.resources.jsonl), not through the ranks: a node is
// spooled before any rank there wrote its facts.
import { appendDurable, listNodeResourceFiles, trackingPaths } from '../../core';
import type { SpoolState } from './state';
import { spoolNode } from './system-spool';

/** Spools every node's new samples, moving `state.nodes` (committed with state.json by the caller).
 *  Returns the number of new points. */
export async function spoolNodes(runDir: string, state: SpoolState): Promise<number> {
  let added = 0;
  for (const { host } of listNodeResourceFiles(runDir)) {
    const step = await spoolNode(runDir, host, state.nodes?.[host]);
    if (!step) continue;
    await appendDurable(runDir, trackingPaths(runDir).nodeSystemSpool(host), step.data);
    state.nodes = { ...state.nodes, [host]: step.cursor };
    added += step.points;
  }
  return added;
}
