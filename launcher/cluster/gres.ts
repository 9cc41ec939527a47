// Slurm generic resources (gres) as scontrol and sinfo print them. Pure.
//   "gpu:4"  "gpu:a100:4(S:0-1)"  "gpu:a100:2,gpu:v100:2"  "gpu:a100:4(S:0-1),shard:8"  "(null)"
import { splitTopLevel } from './hostlist';

export interface GresEntry {
  /** gpu, mps, shard, ... */
  name: string;
  /** a100, tesla, nvidia_h100_80gb_hbm3, ... (absent when untyped) */
  type?: string;
  count: number;
  /** The socket binding or index list in parentheses, e.g. "S:0-1" or "IDX:0-3", as printed. */
  binding?: string;
}

const SUFFIX: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

function parseCount(text: string): number | undefined {
  const m = /^(\d+)([KMGT]?)$/i.exec(text);
  return m ? Number(m[1]) * SUFFIX[m[2].toUpperCase()] : undefined;
}

/** Parses a gres string; entries that cannot be read are skipped (never throws). */
export function parseGres(text: string | undefined): GresEntry[] {
  const t = (text ?? '').trim();
  if (t === '' || t === '(null)' || t === 'N/A') return [];
  const out: GresEntry[] = [];
  for (const item of splitTopLevel(t)) {
    const pm = /^([^()]*)(?:\(([^)]*)\))?$/.exec(item);
    if (!pm) continue;
    const parts = pm[1].split(':');
    const binding = pm[2];
    let name: string;
    let type: string | undefined;
    let count: number | undefined;
    if (parts.length === 1) [name, count] = [parts[0], 1];
    else if (parts.length === 2) {
      name = parts[0];
      count = parseCount(parts[1]);
      if (count === undefined) [type, count] = [parts[1], 1]; // "gpu:a100" means one
    } else {
      name = parts[0];
      count = parseCount(parts[parts.length - 1]);
      type = parts.slice(1, -1).join(':');
    }
    if (!name || count === undefined) continue;
    out.push({ name, ...(type ? { type } : {}), count, ...(binding ? { binding } : {}) });
  }
  return out;
}

/** GPUs in a gres list: the sum of every "gpu" entry. */
export const gpuCount = (gres: GresEntry[]): number =>
  gres.filter((g) => g.name === 'gpu').reduce((n, g) => n + g.count, 0);

/** GPUs per type, e.g. { a100: 2, v100: 2 }; untyped GPUs count under "gpu". */
export function gpuTypes(gres: GresEntry[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const g of gres) if (g.name === 'gpu') out[g.type ?? 'gpu'] = (out[g.type ?? 'gpu'] ?? 0) + g.count;
  return out;
}

/** For people: "4 x a100", "2 x a100 + 2 x v100", "4", or "-" without GPUs. */
export function describeGpus(gres: GresEntry[]): string {
  const types = Object.entries(gpuTypes(gres));
  if (types.length === 0) return '-';
  if (types.length === 1 && types[0][0] === 'gpu') return String(types[0][1]);
  return types.map(([t, n]) => `${n} x ${t}`).join(' + ');
}
