// `scontrol show node -o` and `scontrol show partition -o` (one Key=Value line per record; the
// multi-line form without -o is read too). Pure.
import { parseScontrolKeyValues } from '../slurm/job-status';
import { parseSlurmMemoryMiB, parseSlurmTime } from '../spec/slurm-time';
import { availability, ClusterFacts, NodeFacts, PartitionFacts } from './facts';
import { gpuCount, parseGres } from './gres';
import { expandHostlist, splitTopLevel } from './hostlist';

/** Records of `firstKey=...`, each as its Key=Value map; continuation lines are joined. */
export function scontrolRecords(text: string, firstKey: string): Record<string, string>[] {
  const joined = text.replace(/\r/g, '').replace(/\n[ \t]+/g, ' ');
  const starts = new RegExp(`(?:^|\\n)(?=${firstKey}=)`);
  return joined
    .split(starts)
    .map((r) => r.replace(/\n/g, ' ').trim())
    .filter((r) => r.startsWith(`${firstKey}=`))
    .map(parseScontrolKeyValues);
}

const num = (v: string | undefined): number | undefined =>
  v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : undefined;
const nullish = (v: string | undefined) =>
  v === undefined || v === '' || v === '(null)' || v === 'N/A' || v === 'None';
const words = (v: string | undefined): string[] => (nullish(v) ? [] : splitTopLevel(v!));

/** "UNLIMITED" -> null; a number -> that; anything else -> undefined. */
function limit(v: string | undefined): number | null | undefined {
  if (v === undefined) return undefined;
  if (/^(UNLIMITED|INFINITE)$/i.test(v.trim())) return null;
  return num(v);
}

function timeLimit(v: string | undefined): number | null | undefined {
  if (v === undefined || nullish(v) || /^NONE$/i.test(v)) return undefined;
  const s = parseSlurmTime(v);
  return s === undefined ? undefined : Number.isFinite(s) ? s : null;
}

function memLimit(v: string | undefined): number | null | undefined {
  if (v === undefined) return undefined;
  if (/^(UNLIMITED|INFINITE)$/i.test(v.trim())) return null;
  const m = parseSlurmMemoryMiB(v);
  return m === 0 ? null : m;
}

export function parseScontrolNodes(text: string): NodeFacts[] {
  return scontrolRecords(text, 'NodeName').map((kv) => {
    const gres = parseGres(kv.Gres);
    const state = kv.State ?? 'UNKNOWN';
    return {
      name: kv.NodeName,
      state,
      availability: availability(state),
      cpus: num(kv.CPUEfctv) ?? num(kv.CPUTot) ?? 0,
      ...(num(kv.CPUAlloc) !== undefined ? { cpusAlloc: num(kv.CPUAlloc) } : {}),
      memoryMiB: num(kv.RealMemory) ?? 0,
      ...(num(kv.AllocMem) !== undefined ? { allocMemMiB: num(kv.AllocMem) } : {}),
      gres,
      gpus: gpuCount(gres),
      partitions: words(kv.Partitions),
      features: words(kv.AvailableFeatures),
      ...(nullish(kv.Reason) ? {} : { reason: kv.Reason }),
    };
  });
}

export function parseScontrolPartitions(text: string): PartitionFacts[] {
  return scontrolRecords(text, 'PartitionName').map((kv) => {
    const maxTimeS = timeLimit(kv.MaxTime);
    return {
      name: kv.PartitionName,
      isDefault: kv.Default === 'YES',
      state: kv.State ?? 'UNKNOWN',
      nodes: nullish(kv.Nodes) ? [] : expandHostlist(kv.Nodes),
      maxTimeS: maxTimeS ?? null,
      maxTime: kv.MaxTime ?? 'UNLIMITED',
      ...(timeLimit(kv.DefaultTime) !== undefined ? { defaultTimeS: timeLimit(kv.DefaultTime) } : {}),
      maxNodes: limit(kv.MaxNodes) ?? null,
      ...(num(kv.MinNodes) !== undefined ? { minNodes: num(kv.MinNodes) } : {}),
      ...(limit(kv.MaxCPUsPerNode) !== undefined ? { maxCpusPerNode: limit(kv.MaxCPUsPerNode) } : {}),
      ...(memLimit(kv.MaxMemPerNode) !== undefined ? { maxMemPerNodeMiB: memLimit(kv.MaxMemPerNode) } : {}),
      ...(num(kv.TotalCPUs) !== undefined ? { totalCpus: num(kv.TotalCPUs) } : {}),
    };
  });
}

/** Facts from the two scontrol outputs. A node's partitions come from the partitions' node lists. */
export function factsFromScontrol(partitionText: string, nodeText: string): ClusterFacts {
  const partitions = parseScontrolPartitions(partitionText);
  const nodes = parseScontrolNodes(nodeText).map((n) => {
    const from = partitions.filter((p) => p.nodes.includes(n.name)).map((p) => p.name);
    return { ...n, partitions: [...new Set([...n.partitions, ...from])] };
  });
  return { version: 1, source: 'scontrol', partitions, nodes };
}
