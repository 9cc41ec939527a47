// Reads the cluster's facts through the injected process runner: scontrol first (all limits),
// sinfo when scontrol cannot show nodes (some sites hide them). Effects stay in the runner.
import { TrackLaunchError } from '../../core';
import { commandFailed, ProcessRunner, runProcess } from '../slurm/run-process';
import { ClusterFacts } from './facts';
import { factsFromScontrol } from './parse-scontrol';
import { factsFromSinfo, SINFO_ARGV } from './parse-sinfo';

export const SCONTROL_PARTITIONS_ARGV = ['scontrol', '--oneliner', 'show', 'partition'];
export const SCONTROL_NODES_ARGV = ['scontrol', '--oneliner', 'show', 'node'];

const HINT =
  'Run track-launch on a Slurm login node; `submit --no-check` skips the check where the cluster hides its facts.';

export async function fetchClusterFacts(
  run: ProcessRunner = runProcess,
  opts: { timeoutMs?: number } = {},
): Promise<ClusterFacts> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const [parts, nodes] = await Promise.all([
    run(SCONTROL_PARTITIONS_ARGV, { timeoutMs }),
    run(SCONTROL_NODES_ARGV, { timeoutMs }),
  ]);
  if (parts.code === 0 && nodes.code === 0) {
    const facts = factsFromScontrol(parts.stdout, nodes.stdout);
    if (facts.partitions.length > 0 && facts.nodes.length > 0) return facts;
  }
  const sinfo = await run(SINFO_ARGV, { timeoutMs });
  if (sinfo.code !== 0) {
    const failed = parts.code !== 0 ? parts : nodes.code !== 0 ? nodes : sinfo;
    throw commandFailed(failed, "could not read the cluster's partitions and nodes", HINT);
  }
  const facts = factsFromSinfo(sinfo.stdout);
  if (facts.partitions.length === 0) {
    throw new TrackLaunchError('COMMAND_FAILED', 'Slurm shows no partitions (sinfo printed none)', {
      hint: HINT,
      details: { command: SINFO_ARGV },
    });
  }
  // scontrol's partition limits (MaxNodes, MaxTime, ...) are kept when only the node list was hidden.
  if (parts.code === 0) {
    const limits = factsFromScontrol(parts.stdout, '').partitions;
    facts.partitions = facts.partitions.map((p) => {
      const l = limits.find((x) => x.name === p.name);
      return l ? { ...l, nodes: p.nodes.length ? p.nodes : l.nodes } : p;
    });
  }
  return facts;
}
