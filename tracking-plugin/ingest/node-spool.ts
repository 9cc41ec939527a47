// The spool stage for the parent run's system metrics: one stream per node file, whatever the
// number of ranks on the node, so each sample reaches MLflow once (docs/cluster.md). The run dir's samples
// are found by their files (logs/node-<host>.resources.jsonl), not through the ranks: a node is
// spooled before any rank there wrote its facts.
import { appendDurable, listNodeResourceFiles, trackingPaths, truncateTo } from '../../core';
import type { SpoolState, SystemCursor } from './state';
import { spoolNode } from './system-spool';

/** Spool file names of node streams (spool/node-<host>.system.jsonl). */
const NODE_SPOOL = /^node-(.+)\.system\.jsonl$/;

/** After a crash between append and commit: a node spool is cut back to what state.json says. */
export async function recoverNodeSpool(runDir: string, state: SpoolState, name: string): Promise<void> {
  const m = NODE_SPOOL.exec(name);
  if (m)
    await truncateTo(runDir, trackingPaths(runDir).nodeSystemSpool(m[1]), state.nodes?.[m[1]]?.spool ?? 0);
}

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

/** The points spooled for the parent's system metrics, all nodes. */
export const nodePointsSpooled = (state: SpoolState): number =>
  Object.values(state.nodes ?? {}).reduce((n: number, c: SystemCursor) => n + c.points, 0);
