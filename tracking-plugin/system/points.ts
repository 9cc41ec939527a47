// Resource samples (logs/node-<host>.resources.jsonl) -> MLflow system metrics with MLflow's own
// names (pure; docs/cluster.md). A node's figures go once to the parent run under `system/<host>/`, as
// MLflow's monitor names multi-node runs; a rank run gets only its GPU, under the single-node names.
import type { GpuResource, ResourceSample } from '../../core';
import { parseResources } from '../../core';
import type { LogLine } from '../logs/lines';
import type { MetricPoint } from '../types';

/** The sampler records MiB; MLflow's megabytes are 10^6 bytes. Bytes first (exact), then one
 *  division as MLflow does (`mib * 1.048576` can be an ulp off). */
const BYTES_IN_MIB = 1024 * 1024;

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const pct = (used: unknown, total: unknown): number | undefined =>
  num(used) && num(total) && total > 0 ? (100 * used) / total : undefined;
const mb = (mib: unknown): number | undefined => (num(mib) ? (mib * BYTES_IN_MIB) / 1e6 : undefined);

/** Turns one sample into points: the names given (without `system/...` prefix) and their values. */
type Figures = (s: ResourceSample) => [name: string, value: number | null | undefined][];

const gpuFigures = (g: GpuResource): [string, number | null | undefined][] => [
  [`gpu_${g.index}_utilization_percentage`, g.util],
  [`gpu_${g.index}_memory_usage_megabytes`, mb(g.mem_used_mb)],
  [`gpu_${g.index}_memory_usage_percentage`, pct(g.mem_used_mb, g.mem_total_mb)],
];

/** Everything a node sample says: the node's CPUs and memory, every GPU, the job's processes. */
const nodeFigures: Figures = (s) => [
  ['cpu_utilization_percentage', s.cpu_util],
  ['system_memory_usage_megabytes', mb(s.mem_used_mb)],
  ['system_memory_usage_percentage', pct(s.mem_used_mb, s.mem_total_mb)],
  ...(s.gpus ?? []).flatMap(gpuFigures),
  // ours (MLflow has no job-only figures): percent of one CPU, and RSS in MLflow's megabytes
  ['job_cpu_utilization_percentage', s.job?.cpu_util],
  ['job_memory_rss_megabytes', mb(s.job?.rss_mb)],
];

function points(s: ResourceSample, step: number, prefix: string, figures: Figures): MetricPoint[] {
  // Rounded, not truncated: t has microseconds, and the float t*1000 may land just below a whole ms.
  const timestamp = Math.round(s.t * 1000);
  return figures(s)
    .filter((f): f is [string, number] => num(f[1]))
    .map(([name, value]) => ({ key: `${prefix}${name}`, value, step, timestamp }));
}

/** The node's points for the parent run: `system/<host>/<name>`; values the sample lacks are left out. */
export const nodePoints = (s: ResourceSample, host: string, step: number): MetricPoint[] =>
  points(s, step, `system/${host}/`, nodeFigures);

/** A rank's points for its own run: `system/gpu_<localRank>_...` when the sample has that GPU. The sample
 *  has no per-process figures (`job` sums every process of the job on the node), so nothing else. */
export const rankPoints = (s: ResourceSample, localRank: number, step: number): MetricPoint[] =>
  points(s, step, 'system/', (x) => (x.gpus ?? []).filter((g) => g.index === localRank).flatMap(gpuFigures));

/** Whole lines of a node file -> points, through `toPoints`. The step is the line's number in the
 *  file (lines[0] is `firstLine`), so a point is the same whichever ingest reads it. A line that does
 *  not parse still counts as a line; one of another version is refused (parseResources throws). */
export function linesToPoints(
  lines: readonly LogLine[],
  firstLine: number,
  file: string,
  toPoints: (s: ResourceSample, step: number) => MetricPoint[],
): MetricPoint[] {
  const out: MetricPoint[] = [];
  lines.forEach((line, i) => {
    const [sample] = parseResources(line.text, file);
    if (sample) out.push(...toPoints(sample, firstLine + i));
  });
  return out;
}
