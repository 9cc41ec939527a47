// The seff-like summary `status` prints: CPU efficiency, memory peak, GPU busy, from the node
// samples (logs/node-*.resources.jsonl) and from accounting (sacct).
import { formatMiB, readNodeResources } from '../../core';
import { JobEfficiency, summarizeJob, summarizeNode } from '../../core';
import { SlurmClient } from '../slurm/client';
import type { SacctUsage } from '../slurm/job-status';

const pct = (x: number | null) => (x === null ? 'n/a' : `${x.toFixed(1)}%`);

function hms(s: number): string {
  const t = Math.round(s);
  const d = Math.floor(t / 86400);
  const rest = [Math.floor((t % 86400) / 3600), Math.floor((t % 3600) / 60), t % 60]
    .map((n) => String(n).padStart(2, '0'))
    .join(':');
  return d ? `${d}-${rest}` : rest;
}

/** Lines for `status` (indented like its other lines); none when the run has no samples. */
export function formatEfficiency(e: JobEfficiency): string[] {
  const nodes = e.nodes.filter((n) => n.samples > 0);
  if (nodes.length === 0) return [];
  const samples = nodes.reduce((s, n) => s + n.samples, 0);
  const cpus = nodes.reduce((s, n) => s + (n.alloc_cpus ?? n.ncpu), 0);
  const allocKnown = nodes.every((n) => n.alloc_cpus !== null);
  const lines = [`  efficiency: ${samples} sample(s) from ${nodes.length} node(s)`];
  lines.push(
    `    CPU:     ${pct(e.cpu_efficiency)} of ${hms(e.core_walltime_s)} core-walltime (${hms(e.job_cpu_s)} CPU time; ${cpus} CPUs ${allocKnown ? 'allocated' : 'on the nodes'})`,
  );
  if (e.mem_peak) {
    const alloc = e.mem_peak.alloc_mem_mb;
    lines.push(
      `    memory:  peak ${formatMiB(e.mem_peak.rss_mb)} RSS on ${e.mem_peak.host}${alloc ? `, ${pct((100 * e.mem_peak.rss_mb) / alloc)} of ${formatMiB(alloc)} per node` : ''}`,
    );
  }
  if (e.gpu_count > 0) {
    const peak = e.gpu_mem_peak;
    const mem = peak
      ? `; memory peak ${formatMiB(peak.mem_mb)}${peak.total_mb ? ` of ${formatMiB(peak.total_mb)}` : ''} (GPU ${peak.index} on ${peak.host})`
      : '';
    lines.push(`    GPU:     busy ${pct(e.gpu_busy_mean)} on average over ${e.gpu_count} GPU(s)${mem}`);
  }
  for (const n of nodes) {
    const gpu = n.gpus.length ? `  gpu ${n.gpus.map((g) => pct(g.util_mean)).join(' ')}` : '';
    lines.push(
      `    ${n.host}  cpu ${pct(n.cpu_efficiency)} of ${n.alloc_cpus ?? n.ncpu}  rss peak ${formatMiB(n.job_rss_peak_mb)}  node cpu ${pct(n.node_cpu_mean)}${gpu}`,
    );
  }
  return lines;
}

/** Reads every node's samples of a run directory (hosts sorted). */
export function readEfficiency(runDir: string): JobEfficiency {
  return summarizeJob(readNodeResources(runDir).map((n) => summarizeNode(n.host, n.samples)));
}

/** seff's figures, from accounting: efficiencies in percent, null when nothing ran or was asked for. */
export function accountingEfficiency(u: SacctUsage, memPerNodeMiB?: number) {
  const coreWall = u.allocCpus * u.elapsedS;
  const rss = u.maxRssMiB ?? null;
  return {
    source: 'sacct' as const,
    cpu_efficiency: coreWall > 0 ? (100 * u.totalCpuS) / coreWall : null,
    cpu_s: u.totalCpuS,
    core_walltime_s: coreWall,
    alloc_cpus: u.allocCpus,
    elapsed_s: u.elapsedS,
    max_rss_mb: rss, // the largest MaxRSS of the job's steps, on max_rss_node
    max_rss_node: u.maxRssNode ?? null,
    mem_efficiency: rss !== null && memPerNodeMiB ? (100 * rss) / memPerNodeMiB : null,
  };
}

export function formatAccountingEfficiency(a: ReturnType<typeof accountingEfficiency>): string[] {
  const mem =
    a.max_rss_mb === null
      ? 'no MaxRSS recorded'
      : `max RSS ${formatMiB(a.max_rss_mb)}${a.max_rss_node ? ` on ${a.max_rss_node}` : ''}${a.mem_efficiency === null ? '' : ` (${pct(a.mem_efficiency)} of the memory per node)`}`;
  return [
    `  accounting: CPU ${pct(a.cpu_efficiency)} of ${hms(a.core_walltime_s)} core-walltime (${hms(a.cpu_s)} CPU time; ${a.alloc_cpus} CPUs x ${hms(a.elapsed_s)}), ${mem} (sacct)`,
  ];
}

/** seff's figures for a job from sacct; undefined without accounting or before it has the job. */
export async function readAccountingEfficiency(
  jobId: string,
  memPerNodeMiB?: number,
  client = new SlurmClient(),
): Promise<ReturnType<typeof accountingEfficiency> | undefined> {
  const u = await client.usage(jobId);
  return u && accountingEfficiency(u, memPerNodeMiB);
}
