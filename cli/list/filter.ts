// Which index entries `list` shows (pure): newest first, one per job, by state and by name.
import { baseState, invalidOption, type JobIndexEntry } from '../../core';
import type { ListedState } from './row';

/** The index is append-only: the newest line of a (job id, run directory) pair wins; newest first. */
export function newestFirst(entries: readonly JobIndexEntry[]): JobIndexEntry[] {
  const seen = new Set<string>();
  const out: JobIndexEntry[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    const key = `${e.job_id}\0${e.run_dir}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(e);
  }
  return out;
}

/** `--state running,failed` (Slurm's names or short codes, any case; GONE: the run directory is gone). */
export function parseStates(value: string | undefined): Set<ListedState> | undefined {
  if (value === undefined) return undefined;
  const out = new Set<ListedState>();
  for (const raw of value.split(',').map((s) => s.trim())) {
    if (!raw) continue;
    const word = raw.toUpperCase();
    const state = word === 'GONE' ? 'GONE' : baseState(word);
    if (state === 'UNKNOWN' && word !== 'UNKNOWN')
      throw invalidOption(
        'state',
        raw,
        "use Slurm's job state names (PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...), comma-separated, or GONE",
      );
    out.add(state);
  }
  return out.size ? out : undefined;
}

const GLOB_CHARS = /[*?[]/;

/** `--name`: a substring, or a glob (`*`, `?`, `[...]`) matched against the whole name; any case. */
export function nameMatcher(pattern: string | undefined): (name: string) => boolean {
  if (pattern === undefined || pattern === '') return () => true;
  if (!GLOB_CHARS.test(pattern)) {
    const want = pattern.toLowerCase();
    return (name) => name.toLowerCase().includes(want);
  }
  const re = new RegExp(`^${globToRegex(pattern)}$`, 'i');
  return (name) => re.test(name);
}

function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      out += `[${negate ? '^' : ''}${body.replace(/[\\\]]/g, '\\$&')}]`;
      i = end;
    } else out += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return out;
}

/** `--limit`: a whole number of at least 1. */
export function parseLimit(value: unknown): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw invalidOption('limit', value, 'use a whole number of at least 1');
  return n;
}
