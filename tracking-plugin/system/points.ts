// Resource samples (logs/node-<host>.resources.jsonl, docs/cluster.md) -> MLflow system metrics
// (pure). Names are MLflow's own (mlflow/system_metrics/metrics/{cpu,gpu}_monitor.py) under
// `system/`, so MLflow's UI shows them on its "System metrics" tab next to what mlflow itself logs.
import type { ResourceSample } from '../../core';
import { parseResources } from '../../core';
import type { LogLine } from '../logs/lines';
import type { MetricPoint } from '../types';

/** MLflow's megabytes are 10^6 bytes; the sampler's are MiB. */
const MIB_IN_MB = 1.048576;

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const pct = (used: unknown, total: unknown): number | undefined =>
  num(used) && num(total) && total > 0 ? (100 * used) / total : undefined;

/** The points of one sample: timestamp t*1000 ms, the given step; values the sample lacks are left out. */
export function samplePoints(s: ResourceSample, step: number): MetricPoint[] {
  // Rounded, not truncated: t has microseconds, and the float t*1000 may land just below a whole ms.
  const timestamp = Math.round(s.t * 1000);
  const out: MetricPoint[] = [];
  const add = (key: string, value: number | undefined | null) => {
    if (num(value)) out.push({ key: `system/${key}`, value, step, timestamp });
  };
  add('cpu_utilization_percentage', s.cpu_util);
  add('system_memory_usage_megabytes', num(s.mem_used_mb) ? s.mem_used_mb * MIB_IN_MB : undefined);
  add('system_memory_usage_percentage', pct(s.mem_used_mb, s.mem_total_mb));
  for (const g of s.gpus ?? []) {
    add(`gpu_${g.index}_utilization_percentage`, g.util);
    add(`gpu_${g.index}_memory_usage_megabytes`, num(g.mem_used_mb) ? g.mem_used_mb * MIB_IN_MB : undefined);
    add(`gpu_${g.index}_memory_usage_percentage`, pct(g.mem_used_mb, g.mem_total_mb));
  }
  add('job_cpu_utilization_percentage', s.job?.cpu_util);
  add('job_memory_rss_megabytes', s.job?.rss_mb);
  return out;
}

/**
 * Whole lines of a node file -> points. `firstLine` is the 0-based number of lines[0] in the file:
 * the step is the line number, so a point is the same whichever ingest reads it (and MLflow drops
 * a re-sent copy). A line that does not parse (a sampler killed mid-write, then restarted) still
 * counts as a line; a line of another version is refused (parseResources throws, naming `file`).
 */
export function linesToPoints(lines: readonly LogLine[], firstLine: number, file: string): MetricPoint[] {
  const out: MetricPoint[] = [];
  lines.forEach((line, i) => {
    const [sample] = parseResources(line.text, file);
    if (sample) out.push(...samplePoints(sample, firstLine + i));
  });
  return out;
}
