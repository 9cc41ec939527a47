// The summary's efficiency rows, from the node samples (the same summaries `track-launch status` prints):
// CPU time used against the CPU time allocated, the peak RSS of each node, and GPU busy when there are GPUs.
import { formatMiB, summarizeJob, summarizeNode } from '../../core';
import type { NodeResources } from '../model';

/** Nodes named one by one up to here; beyond, the largest and the smallest peak. */
const MAX_NODES_LISTED = 8;

const hours = (s: number) => (s >= 360 ? `${(s / 3600).toFixed(1)} h` : `${s.toFixed(1)} s`);

export function efficiencyRows(nodes: readonly NodeResources[] | undefined): [string, string][] {
  const sampled = (nodes ?? []).filter((n) => n.samples.length > 0);
  if (sampled.length === 0) return [];
  const job = summarizeJob(sampled.map((n) => summarizeNode(n.host, n.samples)));
  const rows: [string, string][] = [];
  if (job.cpu_efficiency !== null)
    rows.push([
      'CPU efficiency',
      `${job.cpu_efficiency.toFixed(1)}%: ${hours(job.job_cpu_s)} of CPU time used of ${hours(job.core_walltime_s)} ` +
        `allocated (sampled time x CPUs per node, ${sampled.length} node${sampled.length === 1 ? '' : 's'})`,
    ]);
  const peaks = [...job.nodes].sort((a, b) => b.job_rss_peak_mb - a.job_rss_peak_mb);
  const shown = peaks.length <= MAX_NODES_LISTED ? peaks : [peaks[0], peaks[peaks.length - 1]];
  const of = (alloc: number | null) => (alloc === null ? '' : ` of ${formatMiB(alloc)}`);
  rows.push([
    'Max RSS per node',
    shown.map((n) => `${n.host} ${formatMiB(n.job_rss_peak_mb)}${of(n.alloc_mem_mb)}`).join(', ') +
      (shown.length < peaks.length ? ` (largest and smallest of ${peaks.length} nodes)` : ''),
  ]);
  if (job.gpu_count > 0 && job.gpu_busy_mean !== null) {
    const peak = job.gpu_mem_peak;
    rows.push([
      'GPUs',
      `${job.gpu_count} GPU(s), ${job.gpu_busy_mean.toFixed(1)}% busy on average` +
        (peak
          ? `; memory peak ${formatMiB(peak.mem_mb)}${of(peak.total_mb)} (${peak.host} GPU ${peak.index})`
          : ''),
    ]);
  }
  return rows;
}
