// Pure: a node's resource samples -> its page's columns; a missing value is NaN, a gap rather than a zero.
import type { ResourceSample } from '../../core';

export interface ResourceColumns {
  /** Seconds since the job's start, at each sample's t (a sample covers the dt before it). */
  x: Float64Array;
  nodeCpu: Float64Array;
  /** job.cpu_util / the CPUs allocated on the node (the node's CPUs where Slurm did not say): percent. */
  jobCpu: Float64Array;
  /** The CPUs jobCpu is a share of, and whether that is the allocation (else the node's CPU count). */
  cpus: number;
  cpusAllocated: boolean;
  ncpu: number;
  nodeMem: Float64Array;
  jobRss: Float64Array;
  allocMem: number | null;
  memTotal: number | null;
  /** Per GPU: busy, and mem_used_mb / mem_total_mb, percent. */
  gpus: { index: number; util: Float64Array; memPct: Float64Array }[];
}

const val = (v: number | null | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v : NaN);
const last = <T>(xs: readonly T[], f: (x: T) => number | null | undefined): number | null => {
  for (let i = xs.length - 1; i >= 0; i--) {
    const v = f(xs[i]);
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return null;
};

export function resourceColumns(samples: readonly ResourceSample[], t0: number): ResourceColumns {
  const col = (f: (s: ResourceSample) => number | null | undefined) =>
    Float64Array.from(samples, (s) => val(f(s)));
  const alloc = last(samples, (s) => s.alloc_cpus);
  const ncpu = last(samples, (s) => s.ncpu) ?? 0;
  const indices = [...new Set(samples.flatMap((s) => (s.gpus ?? []).map((g) => g.index)))].sort(
    (a, b) => a - b,
  );
  const gpu = (s: ResourceSample, i: number) => (s.gpus ?? []).find((g) => g.index === i);
  return {
    x: col((s) => s.t - t0),
    nodeCpu: col((s) => s.cpu_util),
    // each sample against its own allocation: the same for the whole job, but a sample may lack it
    jobCpu: col((s) => {
      const cpus = s.alloc_cpus ?? s.ncpu;
      return cpus > 0 ? val(s.job?.cpu_util) / cpus : NaN;
    }),
    cpus: alloc ?? ncpu,
    cpusAllocated: alloc !== null,
    ncpu,
    nodeMem: col((s) => s.mem_used_mb),
    jobRss: col((s) => s.job?.rss_mb),
    allocMem: last(samples, (s) => s.alloc_mem_mb),
    memTotal: last(samples, (s) => s.mem_total_mb),
    gpus: indices.map((index) => ({
      index,
      util: col((s) => gpu(s, index)?.util),
      memPct: col((s) => {
        const g = gpu(s, index);
        return g && typeof g.mem_total_mb === 'number' && g.mem_total_mb > 0
          ? (100 * val(g.mem_used_mb)) / g.mem_total_mb
          : NaN;
      }),
    })),
  };
}
