// Files a job wrote that the user asked to attach (--artifact), found under a root the user named
// (the submit directory or the run directory) with the run directory's trust rules: no symlink is
// followed (not the file, not a directory on the way), only regular files, a size bound, and a
// pattern that leads outside its root is refused. Bounded walks: a glob over a big tree stops.
import * as fs from 'fs';
import * as path from 'path';
import { hasMagic, matchPart, patternParts } from './glob';
import { refusal } from './guards';
import { readBounded } from './safe-fs';

/** The largest file --artifact attaches (docs/tracking.md). */
export const OUTSIDE_FILE_LIMIT = 100 << 20;

export interface OutsideMatch {
  /** Matching regular files within the size bound, relative to the root. */
  files: string[];
  /** What matched but is refused: a symlink, not a regular file, too large. */
  refused: { rel: string; why: string }[];
  /** The pattern leads outside the root: nothing there was looked at. */
  outside: boolean;
  /** The walk stopped at maxFiles matches or maxEntries directory entries. */
  truncated: boolean;
}

export interface FindLimits {
  maxFiles?: number;
  maxEntries?: number;
  maxBytes?: number;
}

const LINK = 'is a symbolic link (not followed)';

/** The files under `root` that `pattern` (a path or glob, relative to root or absolute) names; a
 *  directory named stands for every file below it. Missing root or no match: no files. */
export function findOutsideFiles(root: string, pattern: string, limits: FindLimits = {}): OutsideMatch {
  const maxFiles = limits.maxFiles ?? 1000;
  const maxEntries = limits.maxEntries ?? 100_000;
  const maxBytes = limits.maxBytes ?? OUTSIDE_FILE_LIMIT;
  const out: OutsideMatch = { files: [], refused: [], outside: false, truncated: false };
  const parts = patternParts(root, pattern);
  if (!parts) return { ...out, outside: true };
  if (!parts.length || !fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) return out;
  const seen = new Set<string>();
  let entries = 0;
  const full = () => out.files.length >= maxFiles || entries >= maxEntries;
  const list = (rel: string): string[] => {
    const names = fs.readdirSync(path.join(root, rel)).sort();
    entries += names.length;
    return names;
  };
  const lstat = (rel: string) => fs.lstatSync(path.join(root, rel), { throwIfNoEntry: false });

  const take = (rel: string, st: fs.Stats): void => {
    if (seen.has(rel) || full()) return;
    seen.add(rel);
    if (st.isSymbolicLink()) out.refused.push({ rel, why: LINK });
    else if (st.isDirectory()) tree(rel);
    else if (!st.isFile()) out.refused.push({ rel, why: 'is not a regular file' });
    else if (st.size > maxBytes)
      out.refused.push({ rel, why: `is ${st.size} bytes, over the limit of ${maxBytes} bytes` });
    else out.files.push(rel);
  };
  const tree = (rel: string): void => {
    for (const name of list(rel)) {
      const st = lstat(path.join(rel, name));
      if (st) take(path.join(rel, name), st);
    }
  };
  const walk = (dir: string, i: number): void => {
    if (full()) return;
    const part = parts[i];
    const last = i === parts.length - 1;
    if (part === '**') {
      if (last) return tree(dir);
      walk(dir, i + 1);
      for (const name of list(dir)) {
        const st = name.startsWith('.') ? undefined : lstat(path.join(dir, name));
        if (st?.isDirectory() && !full()) walk(path.join(dir, name), i);
      }
      return;
    }
    const magic = hasMagic(part);
    for (const name of magic ? list(dir).filter((n) => matchPart(part, n)) : [part]) {
      const rel = path.join(dir, name);
      const st = lstat(rel);
      if (!st) continue;
      if (last) take(rel, st);
      else if (st.isDirectory()) walk(rel, i + 1);
      // a link on the way is not followed; said when the user named it, not when a glob met it
      else if (st.isSymbolicLink() && !magic) out.refused.push({ rel, why: LINK });
    }
  };
  walk('', 0);
  out.truncated = full();
  return out;
}

/** The bytes of `rel` under `root`, with the run directory's trust rules (readBounded): no link on
 *  the way or at the file, a regular file of at most `limit` bytes; else a RUN_DIR error naming it. */
export function readOutsideFile(root: string, rel: string, limit = OUTSIDE_FILE_LIMIT): Buffer {
  const file = path.join(root, rel);
  const data = readBounded(root, file, limit);
  if (data === undefined) throw refusal(file, 'is gone', 'it was removed after it was found');
  return data;
}
