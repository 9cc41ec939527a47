// The glob patterns --artifact takes (pure): `*` and `?` within one path part, `[abc]`/`[!a-z]`,
// and `**` as a whole part for any number of directories. As in the shell, `*` does not match a
// leading dot unless the part starts with one.
import * as path from 'path';

export const hasMagic = (part: string): boolean => /[*?[]/.test(part);

/** A pattern part the matcher cannot use: no regular expression can be made of it (a range out of
 *  order, `[z-a]`), or it is longer than any file name. */
export class GlobPartError extends Error {
  constructor(
    readonly part: string,
    why: string,
    fix = 'write each [range] low to high, e.g. [a-z]',
  ) {
    super(`the glob part ${JSON.stringify(part)} cannot be matched (${why}): ${fix}`);
    this.name = 'GlobPartError';
  }
}

/** The longest file name (bytes): a longer part names nothing, and the system refuses to look it up. */
const NAME_MAX = 255;

/** A regular expression for one path part of a pattern (not `**`); a GlobPartError if none can be made. */
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
  try {
    return new RegExp(`^${re}$`, 'u');
  } catch (err) {
    throw new GlobPartError(
      part,
      (err as Error).message.replace(/^Invalid regular expression: \/.*\/u?: /s, ''),
    );
  }
}

/** Compiles, with partRegExp, every part of `pattern` that the matcher (findOutsideFiles) may
 *  compile, whatever root the pattern is resolved in (those are among the parts of the pattern
 *  normalized), and refuses a part no file name can match: once this accepts a pattern, the
 *  matcher can use it. A GlobPartError if not. */
export function compileGlob(pattern: string): void {
  for (const part of path.normalize(pattern).split('/')) {
    if (Buffer.byteLength(part) > NAME_MAX)
      throw new GlobPartError(part, `longer than ${NAME_MAX} bytes`, 'no file name is that long');
    if (part !== '**' && hasMagic(part)) partRegExp(part);
  }
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
