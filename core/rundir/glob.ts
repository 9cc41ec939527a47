// The glob patterns --artifact takes (pure): `*` and `?` within one path part, `[abc]`/`[!a-z]`,
// and `**` as a whole part for any number of directories. As in the shell, `*` does not match a
// leading dot unless the part starts with one.
import * as path from 'path';

export const hasMagic = (part: string): boolean => /[*?[]/.test(part);

/** A regular expression for one path part of a pattern (not `**`). */
export function partRegExp(part: string): RegExp {
  let re = '';
  for (let i = 0; i < part.length; i++) {
    const c = part[i];
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = part.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        const body = part.slice(i + 1, end);
        const negate = body.startsWith('!') || body.startsWith('^');
        const chars = (negate ? body.slice(1) : body).replace(/[\\\]^]/g, '\\$&');
        re += `[${negate ? '^' : ''}${chars}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'u');
}

/** Does the name `name` (one directory entry) match the pattern part? */
export function matchPart(part: string, name: string): boolean {
  if (name.startsWith('.') && !part.startsWith('.')) return false;
  return partRegExp(part).test(name);
}

/** A pattern as parts relative to `root`, or undefined when it leads outside `root` (`../x`, or
 *  an absolute path elsewhere). `..` is resolved by name: a symlinked directory is refused anyway. */
export function patternParts(root: string, pattern: string): string[] | undefined {
  const rel = path.isAbsolute(pattern) ? path.relative(root, pattern) : path.normalize(pattern);
  if (rel === '' || rel === '.') return []; // the root itself: no file
  if (rel === '..' || rel.startsWith('../') || path.isAbsolute(rel)) return undefined;
  return rel.split('/').filter((p) => p !== '' && p !== '.');
}
