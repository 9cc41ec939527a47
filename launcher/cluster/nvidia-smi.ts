// nvidia-smi --query-gpu=<NVIDIA_SMI_QUERY> --format=csv,noheader,nounits. Pure.
// The sampler (sbatch/lib/sampler.sh) asks for the first four fields in this order.

export const NVIDIA_SMI_QUERY = 'index,utilization.gpu,memory.used,memory.total,uuid,name';
export const NVIDIA_SMI_ARGV = [
  'nvidia-smi',
  `--query-gpu=${NVIDIA_SMI_QUERY}`,
  '--format=csv,noheader,nounits',
];

export interface GpuSample {
  index: number;
  /** Percent of the interval a kernel ran; null where the driver does not say (MIG, "[N/A]"). */
  util: number | null;
  mem_used_mb: number | null;
  mem_total_mb: number | null;
  uuid?: string;
  name?: string;
}

/** "[N/A]", "[Not Supported]", "N/A", "" -> null. */
function value(text: string | undefined): number | null {
  const t = (text ?? '').trim();
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : null;
}

export function parseNvidiaSmi(text: string): GpuSample[] {
  const out: GpuSample[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const f = line.split(',').map((s) => s.trim());
    const index = value(f[0]);
    if (index === null) continue;
    const uuid = f[4];
    // Names may hold commas; they are last, so the rest of the line is the name.
    const name = f.length > 5 ? f.slice(5).join(', ') : undefined;
    out.push({
      index,
      util: value(f[1]),
      mem_used_mb: value(f[2]),
      mem_total_mb: value(f[3]),
      ...(uuid ? { uuid } : {}),
      ...(name ? { name } : {}),
    });
  }
  return out;
}
