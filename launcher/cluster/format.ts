// The `cluster` command's table: per partition its limits and state counts, then its nodes
// grouped by identical CPUs, memory, GPUs and state (the way sinfo groups them). Pure.
import { formatMiB } from '../../core';
import { ClusterFacts, formatSeconds, NodeFacts, nodesOf, PartitionFacts } from './facts';
import { describeGpus } from './gres';
import { compressHostlist } from './hostlist';

export function table(rows: string[][], indent = ''): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map(
    (r) =>
      indent +
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
  );
}

/** Nodes idle, mixed, allocated, and in any other state. */
export function stateCounts(nodes: NodeFacts[]): Record<'idle' | 'mixed' | 'allocated' | 'other', number> {
  const c = { idle: 0, mixed: 0, allocated: 0, other: 0 };
  for (const { availability: a } of nodes)
    c[a === 'idle' || a === 'mixed' || a === 'allocated' ? a : 'other']++;
  return c;
}

function limitText(p: PartitionFacts): string {
  const parts = [`time limit ${formatSeconds(p.maxTimeS)}`];
  if (p.defaultTimeS !== undefined) parts.push(`default ${formatSeconds(p.defaultTimeS)}`);
  if (p.maxNodes !== null) parts.push(`at most ${p.maxNodes} node(s) per job`);
  if (p.maxCpusPerNode) parts.push(`at most ${p.maxCpusPerNode} CPUs per node`);
  if (p.maxMemPerNodeMiB) parts.push(`at most ${formatMiB(p.maxMemPerNodeMiB)} per node`);
  return parts.join(', ');
}

/** Node groups with the same CPUs, memory, GPUs and availability, in the partition's order. */
export function nodeGroups(nodes: NodeFacts[]): Array<{ names: string[]; sample: NodeFacts }> {
  const groups = new Map<string, { names: string[]; sample: NodeFacts }>();
  for (const n of nodes) {
    const key = [n.cpus, n.memoryMiB, describeGpus(n.gres), n.availability].join('|');
    const g = groups.get(key);
    if (g) g.names.push(n.name);
    else groups.set(key, { names: [n.name], sample: n });
  }
  return [...groups.values()];
}

export function formatCluster(facts: ClusterFacts): string {
  const out: string[] = [];
  const head = [
    [
      ...'PARTITION STATE NODES IDLE MIXED ALLOC OTHER CPUS/NODE MEMORY/NODE GPUS/NODE'.split(' '),
      'TIME LIMIT',
    ],
  ];
  const range = (xs: number[], f: (x: number) => string = String) => {
    if (xs.length === 0) return '-';
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    return lo === hi ? f(lo) : `${f(lo)}-${f(hi)}`;
  };
  for (const p of facts.partitions) {
    const nodes = nodesOf(facts, p);
    const c = stateCounts(nodes);
    head.push([
      `${p.name}${p.isDefault ? '*' : ''}`,
      p.state.toLowerCase(),
      String(p.nodes.length),
      String(c.idle),
      String(c.mixed),
      String(c.allocated),
      String(c.other),
      range(nodes.map((n) => n.cpus)),
      range(
        nodes.map((n) => n.memoryMiB),
        formatMiB,
      ),
      nodes.every((n) => n.gpus === 0) ? '-' : range(nodes.map((n) => n.gpus)),
      formatSeconds(p.maxTimeS),
    ]);
  }
  out.push(...table(head));
  for (const p of facts.partitions) {
    out.push('', `${p.name}${p.isDefault ? ' (default)' : ''}: ${limitText(p)}`);
    const rows = [['NODES', 'COUNT', 'STATE', 'CPUS', 'MEMORY', 'GPUS (GRES)']];
    for (const g of nodeGroups(nodesOf(facts, p))) {
      const s = g.sample;
      const gres = s.gres
        .filter((x) => x.name === 'gpu')
        .map((x) => [x.name, x.type, x.count].filter((v) => v !== undefined).join(':'))
        .join(',');
      rows.push([
        compressHostlist(g.names),
        String(g.names.length),
        s.availability,
        String(s.cpus),
        formatMiB(s.memoryMiB),
        `${describeGpus(s.gres)}${gres && describeGpus(s.gres) !== '-' ? ` (${gres})` : ''}`,
      ]);
    }
    out.push(...table(rows, '  '));
    const down = nodesOf(facts, p).filter((n) => n.reason);
    for (const n of down) out.push(`  ${n.name}: ${n.availability}, ${n.reason}`);
  }
  out.push(
    '',
    `* default partition. Read from ${facts.source}. MEMORY is what jobs may ask for (RealMemory).`,
  );
  return out.join('\n');
}

/** Facts limited to some partitions (and their nodes). */
export function selectPartitions(facts: ClusterFacts, names: string[]): ClusterFacts {
  const partitions = facts.partitions.filter((p) => names.includes(p.name));
  const keep = new Set(partitions.flatMap((p) => p.nodes));
  return { ...facts, partitions, nodes: facts.nodes.filter((n) => keep.has(n.name)) };
}
