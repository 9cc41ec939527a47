// Which run directory a submission uses: a default name unique under concurrent submission, or
// the user's --run-dir, which when it exists must be theirs and private (issue 14). Nothing is
// written here: prepareRunDir claims the directory with an exclusive mkdir.
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import { checkRunDirOwnership } from '../../core';

/** `given`: --run-dir as the user gave it (else `resolved` is the default runs/<name>-<time>). */
export function chooseRunDir(given: unknown, resolved: string): string {
  if (!given) return freeRunDir(resolved);
  if (fs.lstatSync(resolved, { throwIfNoEntry: false })) checkRunDirOwnership(resolved);
  return resolved;
}

/** runs/x-20261202-101112-<6 random hex digits>: submissions in the same second (a sweep loop,
 *  several login nodes) never pick the same name. */
function freeRunDir(dir: string): string {
  for (;;) {
    const d = `${dir}-${randomBytes(3).toString('hex')}`;
    if (!fs.existsSync(d)) return d;
  }
}
