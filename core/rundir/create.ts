// A new run directory, claimed atomically: mkdir of its last component (one there already is taken
// only when it is a private directory of the user's own without a job) and an exclusive job.json.
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError } from '../errors';
import { DIR_MODE } from './guards';
import { claimJobRecord } from './job-record';
import { runPaths } from './layout';
import { checkRunDirOwnership } from './ownership';
import { ensureDir, removeTree } from './safe-fs';

/** Create `runDir` (0700) and claim it for a job; refuses a directory that already holds one, so
 *  nothing of an earlier run is overwritten. Returns an undo, for a refused submission, that removes
 *  what this call and the writes after it created, decided after the fact: never a parent that
 *  existed or that another submission made, never another submission's run directory. */
export function createRunDir(runDir: string): () => void {
  const p = runPaths(runDir);
  const { fresh, parents } = claimDir(p.root);
  if (!fresh) checkRunDirOwnership(p.root);
  // Taken before the claim: once job.json is ours, nobody else adds to this directory.
  const before = new Set(fresh ? [] : fs.readdirSync(p.root));
  if (!claimJobRecord(p.root)) {
    // Lost to another submission (or an earlier run): what is there is theirs, untouched.
    throw new TrackLaunchError('INVALID_SPEC', `--run-dir: ${p.root} already holds a job (job.json exists)`, {
      hint: 'Choose a new --run-dir, or leave it out to get a fresh one under ./runs/.',
    });
  }
  for (const dir of [p.logsDir, p.rendezvousDir, path.join(p.binDir, 'lib')]) ensureDir(p.root, dir);
  return () => {
    if (fresh) removeTree(p.root, p.root);
    else
      for (const name of fs.readdirSync(p.root))
        if (!before.has(name)) removeTree(p.root, path.join(p.root, name));
    for (const dir of [...parents].reverse()) removeIfEmpty(dir);
  };
}

/** mkdir of `dir` itself (not recursive), after the parents it needs (those this call made are
 *  returned, highest first). A parent removed by another submission's undo meanwhile is made again. */
function claimDir(dir: string): { fresh: boolean; parents: string[] } {
  const parents: string[] = [];
  for (let attempt = 0; ; attempt++) {
    parents.push(...makeParents(path.dirname(dir)));
    try {
      return { fresh: mkdirNew(dir), parents };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 5) throw err;
    }
  }
}

/** The missing ancestors of `dir` made one by one, highest first; only those this call made (not
 *  another submission's). */
function makeParents(dir: string): string[] {
  const missing: string[] = [];
  for (let d = dir; !fs.existsSync(d) && path.dirname(d) !== d; d = path.dirname(d)) missing.unshift(d);
  return missing.filter(mkdirNew);
}

/** mkdir with mode 0700 whatever the umask; false when it exists already. */
function mkdirNew(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { mode: DIR_MODE });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  fs.chmodSync(dir, DIR_MODE);
  return true;
}

/** rmdir: a parent that another submission put its run directory into meanwhile stays. */
function removeIfEmpty(dir: string): void {
  try {
    fs.rmdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw err;
  }
}
