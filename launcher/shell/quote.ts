// The one place that turns values into shell words. User values are always Literal; a
// deliberate expansion (such as "$SLURM_JOB_ID") must be built with expand(), so the type
// says which words the shell may interpret.

export type ShellWord = { kind: 'literal'; value: string } | { kind: 'expansion'; text: string };

export const literal = (value: string): ShellWord => ({ kind: 'literal', value });

/** A word the shell is meant to expand, e.g. expand('"$SLURM_JOB_ID"'). Never pass user input here. */
export const expand = (text: string): ShellWord => ({ kind: 'expansion', text });

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

export function word(w: ShellWord | string): string {
  if (typeof w === 'string') return quote(w);
  return w.kind === 'literal' ? quote(w.value) : w.text;
}

/** A command line from words: strings are literals, expansions stay as written. */
export function commandLine(words: Array<ShellWord | string>): string {
  return words.map(word).join(' ');
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
