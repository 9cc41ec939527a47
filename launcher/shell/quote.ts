// The one place that turns values into shell words. Every user value goes through quote(); the
// renderers write deliberate expansions ("$SLURM_JOB_ID") as literal template text, never from input.

/**
 * Quote a string for POSIX sh/bash so that it is one word with exactly these bytes.
 * Single quotes keep everything literal; an embedded ' becomes '\''.
 */
export function quote(value: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
  // A carriage return inside a script makes sbatch refuse it ("DOS line breaks"): ANSI-C quoting
  // spells it (and every other control character) as an escape instead.
  if (value.includes('\r')) return ansiC(value);
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** $'...' with every control character, backslash and quote escaped (bash, ksh, zsh). */
function ansiC(value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what it escapes
  const body = value.replace(/[\\'\x00-\x1f\x7f]/g, (c) => {
    if (c === '\\' || c === "'") return `\\${c}`;
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
  return `$'${body}'`;
}
