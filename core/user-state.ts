// Files kept per user beside the run directories: $XDG_STATE_HOME/track-launch/ (else
// ~/.local/state/track-launch/): the job index (rundir/job-index.ts) and what ingest learned about
// each MLflow server (tracking-plugin/ingest/pace-store.ts). Read like run-dir files: no symlink
// followed, a regular file of the user's own, the size bounded; written as run-dir files are.
import * as os from 'os';
import * as path from 'path';
import { readBounded, writeAtomic } from './rundir/safe-fs';

export function userStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'track-launch');
}

/** The text of `rel` under the state directory; undefined if it is missing. Throws a RUN_DIR error
 *  (with why) if it or a directory on its way is a symlink, if it is not a regular file, someone
 *  else's, or over `maxBytes` (readBounded). */
export function readUserState(rel: string, maxBytes: number, env = process.env): string | undefined {
  const root = userStateDir(env);
  return readBounded(root, path.join(root, rel), maxBytes, { ownOnly: true })?.toString('utf8');
}

/** Writes `rel` under the state directory as a run-dir file is written (writeAtomic: a private
 *  temporary file, fsync, rename; no link followed, directories 0700). */
export function writeUserState(rel: string, text: string, env = process.env): void {
  const root = userStateDir(env);
  writeAtomic(root, path.join(root, rel), text);
}
