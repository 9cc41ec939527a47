// Slurm host lists: "gpu-[01-16]", "tlnode[1-3],login1", "r[1-2]n[01-04]". Pure.

/** Splits on commas that are not inside [...] (or (...), for gres and socket lists). */
export function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '[' || ch === '(') depth++;
    else if ((ch === ']' || ch === ')') && depth > 0) depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/** "tlnode[1-3],x" -> ["tlnode1", "tlnode2", "tlnode3", "x"]; keeps zero padding ("[01-03]"). */
export function expandHostlist(text: string): string[] {
  const t = text.trim();
  if (t === '' || t === '(null)') return [];
  return splitTopLevel(t).flatMap(expandOne);
}

function expandOne(name: string): string[] {
  const m = /^([^[]*)\[([^\]]*)\](.*)$/.exec(name);
  if (!m) return [name];
  const [, prefix, ranges, rest] = m;
  const tails = expandOne(rest);
  const out: string[] = [];
  for (const r of ranges.split(',')) {
    const rm = /^(\d+)(?:-(\d+))?$/.exec(r.trim());
    if (!rm) {
      out.push(...tails.map((t) => `${prefix}${r}${t}`));
      continue;
    }
    const width = rm[1].length;
    const lo = Number(rm[1]);
    const hi = rm[2] === undefined ? lo : Number(rm[2]);
    for (let i = lo; i <= hi; i++) {
      const n = String(i).padStart(width, '0');
      for (const t of tails) out.push(`${prefix}${n}${t}`);
    }
  }
  return out;
}

/** The inverse for messages: ["gpu-01", "gpu-02", "gpu-04", "login"] -> "gpu-[01-02,04],login". Order kept by first appearance. */
export function compressHostlist(names: string[]): string {
  const groups = new Map<string, { width: number; nums: number[] }>();
  const order: string[] = [];
  for (const name of names) {
    const m = /^(.*?)(\d+)$/.exec(name);
    const key = m ? `${m[1]}\0${m[2].length}` : `${name}\0`;
    if (!groups.has(key)) {
      groups.set(key, { width: m ? m[2].length : 0, nums: [] });
      order.push(key);
    }
    if (m) groups.get(key)!.nums.push(Number(m[2]));
  }
  return order
    .map((key) => {
      const prefix = key.split('\0')[0];
      const g = groups.get(key)!;
      if (g.nums.length === 0) return prefix;
      const nums = [...new Set(g.nums)].sort((a, b) => a - b);
      const pad = (n: number) => String(n).padStart(g.width, '0');
      if (nums.length === 1) return `${prefix}${pad(nums[0])}`;
      const parts: string[] = [];
      for (let i = 0; i < nums.length;) {
        let j = i;
        while (j + 1 < nums.length && nums[j + 1] === nums[j] + 1) j++;
        parts.push(i === j ? pad(nums[i]) : `${pad(nums[i])}-${pad(nums[j])}`);
        i = j + 1;
      }
      return `${prefix}[${parts.join(',')}]`;
    })
    .join(',');
}
