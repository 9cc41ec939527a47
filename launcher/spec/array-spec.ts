// --array SPEC, in Slurm's syntax: comma-separated indexes and ranges with an optional step
// (`0-15:4`), then an optional `%N`, the most tasks running at once. Pure: parsed, checked and
// expanded to the task ids, each of which gets its own run directory (task-<N>/).

export interface ArraySpec {
  /** As sbatch gets it (#SBATCH --array=...), normalised only by trimming. */
  text: string;
  /** The task ids, ascending, each once. */
  tasks: number[];
  /** %N: at most N tasks at once. */
  throttle?: number;
}

/** sbatch's default MaxArraySize is 1001 (ids 0-1000); a site may allow more. Each task gets a
 *  run directory at submit, so the number of tasks is bounded too. */
export const MAX_ARRAY_INDEX = 4_000_000;
export const MAX_ARRAY_TASKS = 10_000;

export const ARRAY_RULE =
  'use Slurm array indexes: N, N-M or N-M:STEP, separated by commas, optionally ending in %MAX (e.g. 0-2, 1,3,5, 0-15:4%2)';

/** The spec, or a string saying what is wrong with it. */
export function parseArraySpec(raw: string): ArraySpec | string {
  const text = raw.trim();
  const m = /^([^%]*)(?:%(\d+))?$/.exec(text);
  if (!m || m[1] === '') return ARRAY_RULE;
  const throttle = m[2] === undefined ? undefined : Number(m[2]);
  if (throttle !== undefined && throttle < 1) return 'the %MAX throttle must be at least 1';
  const ids = new Set<number>();
  for (const item of m[1].split(',')) {
    const r = /^(\d+)(?:-(\d+)(?::(\d+))?)?$/.exec(item);
    if (!r) return `${JSON.stringify(item)} is not an index or range: ${ARRAY_RULE}`;
    const from = Number(r[1]);
    const to = r[2] === undefined ? from : Number(r[2]);
    const step = r[3] === undefined ? 1 : Number(r[3]);
    if (to > MAX_ARRAY_INDEX) return `index ${to} is over ${MAX_ARRAY_INDEX}`;
    if (to < from) return `the range ${item} ends before it starts`;
    if (step < 1) return `the step of ${item} must be at least 1`;
    for (let i = from; i <= to; i += step) {
      ids.add(i);
      if (ids.size > MAX_ARRAY_TASKS) return `more than ${MAX_ARRAY_TASKS} tasks: submit fewer per array`;
    }
  }
  const tasks = [...ids].sort((a, b) => a - b);
  return { text, tasks, ...(throttle === undefined ? {} : { throttle }) };
}

/** `0-(n-1)`: the array a --param-grid of n parameter sets makes without --array. */
export const arrayOfSize = (n: number): ArraySpec => ({
  text: n === 1 ? '0' : `0-${n - 1}`,
  tasks: Array.from({ length: n }, (_, i) => i),
});
