// logs/node-<host>.resources.jsonl, written by sbatch/lib/sampler.sh while the job runs (one JSON
// object per line, format in docs/cluster.md), and a seff-like summary of it. Pure.
import { TrackLaunchError } from './errors';
import { parseJsonLines } from './rundir/json';
import { validated } from './rundir/schema';
import { RESOURCE_SAMPLE } from './rundir/schemas';

export const RESOURCES_VERSION = 1;
export const RESOURCES_FILE = /^node-(.+)\.resources\.jsonl$/;

export interface GpuResource {
  index: number;
  util: number | null;
  mem_used_mb: number | null;
  mem_total_mb: number | null;
}

/** One sample: the node and the job's processes over the `dt` seconds before `t`. */
export interface ResourceSample {
  version: 1;
  /** Unix seconds (microseconds) when the sample was taken; it covers (t - dt, t]. */
  t: number;
  dt: number;
  host: string;
  /** CPUs the kernel shows on the node, and their busy percent (100 = all of them). */
  ncpu: number;
  cpu_util: number;
  mem_used_mb: number;
  mem_total_mb: number;
  /** SLURM_CPUS_ON_NODE and SLURM_MEM_PER_NODE as the job saw them (null outside Slurm / without --mem). */
  alloc_cpus: number | null;
  alloc_mem_mb: number | null;
  /** The job's own processes on the node: count, CPU seconds in this interval, percent of one CPU, summed RSS. */
  job: { nproc: number; cpu_s: number; cpu_util: number; rss_mb: number };
  gpus?: GpuResource[];
}

/** Parses a resources file; a torn last line (the sampler is writing) and blank lines are skipped.
 *  A sample not of its schema (schemas.ts) is a RUN_DIR error naming the file, the sample and the field. */
export function parseResources(text: string, file = 'resources file'): ResourceSample[] {
  return parseJsonLines(text).values.map((s, i) => {
    const version = (s as { version?: unknown } | null)?.version;
    if (version !== RESOURCES_VERSION) {
      throw new TrackLaunchError(
        'RUN_DIR',
        `${file}: sample version ${JSON.stringify(version)} is not one this track-launch reads (it reads version ${RESOURCES_VERSION})`,
        {
          hint: 'Use the track-launch version that ran the job.',
          details: { file },
        },
      );
    }
    return validated<ResourceSample>(`${file} (sample ${i + 1})`, s, RESOURCE_SAMPLE);
  });
}

export interface GpuSummary {
  index: number;
  /** Mean utilisation over the samples that had one, weighted by interval. */
  util_mean: number | null;
  mem_peak_mb: number | null;
  mem_total_mb: number | null;
}

export interface NodeSummary {
  host: string;
  samples: number;
  first_t: number;
  last_t: number;
  /** Seconds the samples cover (sum of dt). */
  covered_s: number;
  job_cpu_s: number;
  alloc_cpus: number | null;
  ncpu: number;
  /** job CPU seconds / (covered seconds x allocated CPUs, else the node's CPUs), percent. */
  cpu_efficiency: number | null;
  node_cpu_mean: number | null;
  job_rss_peak_mb: number;
  node_mem_peak_mb: number;
  mem_total_mb: number;
  alloc_mem_mb: number | null;
  gpus: GpuSummary[];
}

const weightedMean = (pairs: Array<[number | null | undefined, number]>): number | null => {
  let w = 0;
  let s = 0;
  for (const [v, dt] of pairs) {
    if (typeof v !== 'number' || !Number.isFinite(v)) continue;
    s += v * dt;
    w += dt;
  }
  return w > 0 ? s / w : null;
};

const lastNumber = (xs: Array<number | null | undefined>): number | null => {
  for (let i = xs.length - 1; i >= 0; i--) if (typeof xs[i] === 'number') return xs[i] as number;
  return null;
};

export function summarizeNode(host: string, samples: ResourceSample[]): NodeSummary {
  const covered = samples.reduce((n, s) => n + s.dt, 0);
  const cpuS = samples.reduce((n, s) => n + (s.job?.cpu_s ?? 0), 0);
  const alloc = lastNumber(samples.map((s) => s.alloc_cpus));
  const ncpu = lastNumber(samples.map((s) => s.ncpu)) ?? 0;
  const cores = alloc ?? ncpu;
  const gpuIdx = [...new Set(samples.flatMap((s) => (s.gpus ?? []).map((g) => g.index)))].sort(
    (a, b) => a - b,
  );
  const gpus = gpuIdx.map((index) => {
    const per = samples.map((s) => ({ g: (s.gpus ?? []).find((x) => x.index === index), dt: s.dt }));
    const mems = per.map((p) => p.g?.mem_used_mb).filter((m): m is number => typeof m === 'number');
    return {
      index,
      util_mean: weightedMean(per.map((p) => [p.g?.util, p.dt])),
      mem_peak_mb: mems.length ? Math.max(...mems) : null,
      mem_total_mb: lastNumber(per.map((p) => p.g?.mem_total_mb)),
    };
  });
  return {
    host,
    samples: samples.length,
    first_t: samples.length ? samples[0].t - samples[0].dt : 0,
    last_t: samples.length ? samples[samples.length - 1].t : 0,
    covered_s: covered,
    job_cpu_s: cpuS,
    alloc_cpus: alloc,
    ncpu,
    cpu_efficiency: covered > 0 && cores > 0 ? (100 * cpuS) / (covered * cores) : null,
    node_cpu_mean: weightedMean(samples.map((s) => [s.cpu_util, s.dt])),
    job_rss_peak_mb: Math.max(0, ...samples.map((s) => s.job?.rss_mb ?? 0)),
    node_mem_peak_mb: Math.max(0, ...samples.map((s) => s.mem_used_mb ?? 0)),
    mem_total_mb: lastNumber(samples.map((s) => s.mem_total_mb)) ?? 0,
    alloc_mem_mb: lastNumber(samples.map((s) => s.alloc_mem_mb)),
    gpus,
  };
}

export interface JobEfficiency {
  nodes: NodeSummary[];
  /** Sum of job CPU seconds over sum of (covered seconds x CPUs) over the nodes, percent. */
  cpu_efficiency: number | null;
  core_walltime_s: number;
  job_cpu_s: number;
  mem_peak: { host: string; rss_mb: number; alloc_mem_mb: number | null } | null;
  gpu_busy_mean: number | null;
  gpu_count: number;
  gpu_mem_peak: { host: string; index: number; mem_mb: number; total_mb: number | null } | null;
}

const maxBy = <T>(xs: T[], key: (x: T) => number): T | undefined =>
  xs.reduce<T | undefined>((m, x) => (m === undefined || key(x) > key(m) ? x : m), undefined);

export function summarizeJob(nodes: NodeSummary[]): JobEfficiency {
  const withData = nodes.filter((n) => n.samples > 0);
  const coreWall = withData.reduce((s, n) => s + n.covered_s * (n.alloc_cpus ?? n.ncpu), 0);
  const cpuS = withData.reduce((s, n) => s + n.job_cpu_s, 0);
  const memNode = maxBy(withData, (n) => n.job_rss_peak_mb);
  const gpus = withData.flatMap((n) => n.gpus.map((g) => ({ host: n.host, g, covered: n.covered_s })));
  const gpuPeak = maxBy(
    gpus.filter((x) => x.g.mem_peak_mb !== null),
    (x) => x.g.mem_peak_mb!,
  );
  return {
    nodes,
    cpu_efficiency: coreWall > 0 ? (100 * cpuS) / coreWall : null,
    core_walltime_s: coreWall,
    job_cpu_s: cpuS,
    mem_peak: memNode
      ? { host: memNode.host, rss_mb: memNode.job_rss_peak_mb, alloc_mem_mb: memNode.alloc_mem_mb }
      : null,
    gpu_busy_mean: weightedMean(gpus.map((x) => [x.g.util_mean, x.covered])),
    gpu_count: gpus.length,
    gpu_mem_peak: gpuPeak
      ? {
          host: gpuPeak.host,
          index: gpuPeak.g.index,
          mem_mb: gpuPeak.g.mem_peak_mb!,
          total_mb: gpuPeak.g.mem_total_mb,
        }
      : null,
  };
}

/** 2000 -> "2000M"... for people: MiB below 10 GiB, else GiB with one decimal when needed. */
export function formatMiB(mib: number | null | undefined): string {
  if (mib === null || mib === undefined) return 'unlimited';
  if (mib < 10 * 1024) return `${Math.round(mib)} MiB`;
  const g = mib / 1024;
  return `${Number.isInteger(g) ? g : g.toFixed(1)} GiB`;
}
