// A --sbatch value read as sbatch reads an `#SBATCH` line: words split as sbatch's get_argument
// splits them (quotes group, a backslash escapes, an unquoted # starts a comment), then one option
// read as getopt_long reads it (unique prefixes of long names, short letters with glued values).
// Pure; problems come back as text for the caller to refuse with.
import { SBATCH_OPTIONS, SbatchOptionDef } from './sbatch-table';

export interface SbatchOption {
  def: SbatchOptionDef;
  /** The option's value; undefined for a switch or an optional value not given. */
  value?: string;
}

/** The words of `#SBATCH <text>`, or a problem (an unmatched quote, a comment). */
export function sbatchWords(text: string): string[] | string {
  const words: string[] = [];
  let word: string | undefined;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      word = (word ?? '') + (text[++i] ?? '');
    } else if (quote) {
      if (c === quote) quote = '';
      else word = (word ?? '') + c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word = word ?? '';
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '#') {
      return 'a # outside quotes starts a comment in an #SBATCH line: quote it, e.g. --comment="run #3"';
    } else word = (word ?? '') + c;
  }
  if (quote) return `the ${quote} quote is not closed`;
  if (word !== undefined) words.push(word);
  return words;
}

/** The long option `name` stands for: exact, else a unique prefix (glibc: or prefixes of one option
 *  under two names with the same meaning). */
function longOption(name: string): SbatchOptionDef | string {
  const exact = SBATCH_OPTIONS.find((o) => o.name === name);
  if (exact) return exact;
  const hits = SBATCH_OPTIONS.filter((o) => o.name.startsWith(name));
  if (hits.length === 0) return `sbatch has no option --${name}`;
  const same = hits.every(
    (h) => h.arg === hits[0].arg && (h.short ?? h.name) === (hits[0].short ?? hits[0].name),
  );
  if (hits.length > 1 && !same)
    return `--${name} is ambiguous for sbatch (${hits.map((h) => `--${h.name}`).join(', ')}): write the option in full`;
  return hits[0];
}

/** Exactly one option from the words, or a problem. */
export function readSbatchOption(words: string[]): SbatchOption | string {
  const [first, ...rest] = words;
  if (first === undefined) return 'the value is empty';
  let opt: SbatchOption;
  let used = 1;
  if (/^--[^-=]/.test(first)) {
    const eq = first.indexOf('=');
    const def = longOption(eq < 0 ? first.slice(2) : first.slice(2, eq));
    if (typeof def === 'string') return def;
    const glued = eq < 0 ? undefined : first.slice(eq + 1);
    if (def.arg === 'none' && glued !== undefined) return `--${def.name} takes no value`;
    if (def.arg === 'required' && glued === undefined) {
      if (rest[0] === undefined) return `--${def.name} needs a value: --${def.name}=VALUE`;
      used = 2;
    }
    opt = { def, value: glued ?? (def.arg === 'required' ? rest[0] : undefined) };
  } else if (/^-[^-]/.test(first)) {
    const def = SBATCH_OPTIONS.find((o) => o.short === first[1]);
    if (!def) return `sbatch has no option -${first[1]}`;
    const glued = first.slice(2);
    if (def.arg === 'none' && glued !== '')
      return `-${first[1]} takes no value, so "${glued}" would be read as more options`;
    if (def.arg === 'required' && glued === '') {
      if (rest[0] === undefined) return `-${def.short} needs a value, e.g. -${def.short}VALUE`;
      used = 2;
    }
    opt = { def, value: glued !== '' ? glued : def.arg === 'required' ? rest[0] : undefined };
  } else return 'an sbatch option starts with - or --';
  if (words.length > used)
    return `give one sbatch option per --sbatch: ${JSON.stringify(words.slice(used).join(' '))} would be read as more`;
  return opt;
}

/** The option as one `#SBATCH` word, in full: `--name=value`, the value in double quotes (with " and \
 *  escaped) when sbatch would split it or read a comment; a backslash before a space does not keep
 *  the space in Slurm 22.05, quotes do in every version. */
export function renderSbatchOption(o: SbatchOption): string {
  if (o.value === undefined) return `--${o.def.name}`;
  if (!/[\s"'\\#]/.test(o.value) && o.value !== '') return `--${o.def.name}=${o.value}`;
  return `--${o.def.name}="${o.value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}
