// MLflow's rule for metric, param and tag names, and the mapping of names it would refuse (pure).
// The server answers 400 INVALID_PARAMETER_VALUE to a whole batch for one bad name; checking before
// sending keeps one odd name (`acc@1`, `top-1 acc (%)`, `loss[val]`) from blocking every other point.
import { createHash } from 'crypto';

/** MLflow's own limit on a key's length (mlflow/utils/validation.py, MAX_ENTITY_KEY_LENGTH). */
export const MAX_KEY_LENGTH = 250;

// Letters and digits, underscore, slash, period, dash, space and colon: what MLflow's `^[/\w.\- :]*$`
// accepts on a Linux server (Python's \w is Unicode-aware, so `λ` is fine). Letters outside the Basic
// Multilingual Plane are mapped too: a server's Python may not know them.
const VALID = /^[\p{L}\p{N}_/.\- :]+$/u;
const INVALID_CHAR = /[^\p{L}\p{N}_/.\- :]|[\u{10000}-\u{10FFFF}]/gu;
const ASTRAL = /[\u{10000}-\u{10FFFF}]/u;

/** posixpath.normpath for the cases MLflow checks: a name must not resolve to another name as a path. */
function normpath(name: string): string {
  const absolute = name.startsWith('/');
  const parts: string[] = [];
  for (const p of name.split('/')) {
    if (p === '' || p === '.') continue;
    if (p === '..' && parts.length && parts[parts.length - 1] !== '..') parts.pop();
    else if (p !== '..' || !absolute) parts.push(p);
  }
  const joined = parts.join('/');
  return absolute ? '/' + joined : joined || '.';
}

/** Would MLflow accept this as a metric, param or tag name? */
export function isValidName(name: string): boolean {
  if (name.length === 0 || name.length > MAX_KEY_LENGTH || !VALID.test(name) || ASTRAL.test(name))
    return false;
  const norm = normpath(name);
  return norm === name && norm !== '.' && !norm.startsWith('..') && !norm.startsWith('/');
}

/** The name to send: itself when valid, else refused characters and empty or dot-only path parts as `_`,
 *  cut to fit, with a hash of the original (stable, and `acc@1` and `acc#1` stay apart): 6 hex digits,
 *  or 16 where the name is cut (only the hash then tells apart names that differ past the cut).
 *  Undefined when nothing of the name is usable (it is then skipped and counted). */
export function mlflowName(name: string): string | undefined {
  if (isValidName(name)) return name;
  const digest = createHash('sha256').update(name, 'utf8').digest('hex');
  const cleaned = name
    .replace(INVALID_CHAR, '_')
    .split('/')
    .map((p) => (p === '' || /^\.+$/.test(p) ? '_' : p))
    .join('/')
    .replace(/^_\//, '');
  if (!/[\p{L}\p{N}]/u.test(cleaned)) return undefined;
  const hash = digest.slice(0, cleaned.length + 7 <= MAX_KEY_LENGTH ? 6 : 16);
  const mapped = `${cleaned.slice(0, MAX_KEY_LENGTH - hash.length - 1)}_${hash}`;
  return isValidName(mapped) ? mapped : undefined;
}
