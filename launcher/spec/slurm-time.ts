// Slurm's --time formats: "minutes", "minutes:seconds", "hours:minutes:seconds", "days-hours",
// "days-hours:minutes", "days-hours:minutes:seconds", and INFINITE/UNLIMITED, 0 or -1 (no limit).
// Fields out of range (1:99, 2-25) are refused although Slurm would carry them over: more often a
// typo than meant.

export const TIME_FORMATS =
  'use minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or INFINITE (e.g. 30, 1:30:00, 2-00:00:00)';

/** Seconds, Infinity for INFINITE/UNLIMITED, or undefined when the text is not a Slurm time. */
export function parseSlurmTime(text: string): number | undefined {
  const t = text; // as written: ' 30' is refused, not read as 30 and written with its space
  // sbatch: "A time limit of zero requests that no time limit be imposed"; -1 is Slurm's INFINITE.
  if (/^(infinite|unlimited|0+|-1)$/i.test(t)) return Infinity;
  const num = (s: string | undefined) => (s === undefined ? 0 : Number(s));
  let m = /^(\d+)-(\d+)(?::(\d+)(?::(\d+))?)?$/.exec(t);
  if (m) {
    const [d, h, min, s] = [num(m[1]), num(m[2]), num(m[3]), num(m[4])];
    if (h > 23 || min > 59 || s > 59) return undefined;
    return ((d * 24 + h) * 60 + min) * 60 + s;
  }
  m = /^(\d+)(?::(\d+)(?::(\d+))?)?$/.exec(t);
  if (!m) return undefined;
  const hms = m[3] !== undefined;
  const [h, min, s] = hms ? [num(m[1]), num(m[2]), num(m[3])] : [0, num(m[1]), num(m[2])];
  return (hms && min > 59) || s > 59 ? undefined : (h * 60 + min) * 60 + s;
}

/** Slurm's memory sizes: a whole number with an optional K, M, G or T suffix (default M). */
export function parseSlurmMemoryMiB(text: string): number | undefined {
  const m = /^(\d+)([KMGT]?)B?$/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  const factor: Record<string, number> = { K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024, '': 1 };
  return n * factor[m[2].toUpperCase()];
}
