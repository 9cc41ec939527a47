// The CT files of each series under a data directory, found by name (<seriesuid>.<ext>, or .nii.gz and the
// like): bytes per rank, and the files each node's staging copies.
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError } from '../core';

export interface SeriesFiles {
  files: string[];
  bytes: number;
}

export function indexSeriesFiles(dir: string, uids: ReadonlySet<string>): Map<string, SeriesFiles> {
  const st = fs.statSync(dir, { throwIfNoEntry: false });
  if (!st?.isDirectory()) throw new TrackLaunchError('NOT_FOUND', `--data-dir: ${dir} is not a directory`);
  const out = new Map<string, SeriesFiles>();
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? path.join(rel, e.name) : e.name;
      if (e.isDirectory()) {
        walk(r);
        continue;
      }
      if (!e.isFile()) continue;
      const uid = seriesOfName(e.name, uids);
      if (uid === undefined) continue;
      if ([...r].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
        throw new TrackLaunchError(
          'INVALID_SPEC',
          `--data-dir: ${JSON.stringify(r)}: a control character in a path`,
          { hint: 'Rename it: the per-rank file lists (rank-<R>.data-files.txt) hold one path per line.' },
        );
      const entry = out.get(uid) ?? { files: [], bytes: 0 };
      entry.files.push(r);
      entry.bytes += fs.statSync(path.join(dir, r)).size;
      out.set(uid, entry);
    }
  };
  walk('');
  for (const e of out.values()) e.files.sort();
  return out;
}

function seriesOfName(name: string, uids: ReadonlySet<string>): string | undefined {
  const a = name.lastIndexOf('.');
  if (a <= 0) return undefined;
  const one = name.slice(0, a);
  if (uids.has(one)) return one;
  const b = one.lastIndexOf('.');
  const two = b > 0 ? one.slice(0, b) : '';
  return uids.has(two) ? two : undefined;
}
