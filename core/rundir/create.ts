// A new run directory: created with private modes, claimed by an exclusive job.json, and undone
// (only what this submission created) when the submission is refused.
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError } from '../errors';
import { claimJobRecord } from './job-record';
import { runPaths } from './layout';
import { ensureDir, removeTree } from './safe-fs';

/** Create `runDir` (0700) and claim it for a job; refuses a directory that already holds one, so
 *  nothing of an earlier run is overwritten. Returns an undo that removes what this call and the
 *  writes after it created. */
export function createRunDir(runDir: string): () => void {
  const p = runPaths(runDir);
  const undo = undoCreation(p.root);
  ensureDir(p.root, p.root);
  if (!claimJobRecord(p.root)) {
    undo();
    throw new TrackLaunchError('INVALID_SPEC', `--run-dir: ${p.root} already holds a job (job.json exists)`, {
      hint: 'Choose a new --run-dir, or leave it out to get a fresh one under ./runs/.',
    });
  }
  for (const dir of [p.logsDir, p.rendezvousDir, path.join(p.binDir, 'lib')]) ensureDir(p.root, dir);
  return undo;
}

/** What exists now of `dir` and its ancestors, so that undo leaves the file system as it was. */
function undoCreation(dir: string): () => void {
  let top = dir; // the highest directory that does not exist yet
  while (!fs.existsSync(path.dirname(top)) && path.dirname(top) !== top) top = path.dirname(top);
  if (!fs.existsSync(dir)) return () => fs.rmSync(top, { recursive: true, force: true });
  const before = new Set(fs.readdirSync(dir));
  return () => {
    for (const name of fs.readdirSync(dir)) if (!before.has(name)) removeTree(dir, path.join(dir, name));
  };
}
