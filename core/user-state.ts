// Files kept per user beside the run directories: $XDG_STATE_HOME/track-launch/ (else
// ~/.local/state/track-launch/): the job index (rundir/job-index.ts) and what ingest learned about
// each MLflow server (tracking-plugin/ingest/pace-store.ts). Read like run-dir files: no symlink
// followed, a regular file of the user's own, the size bounded; written as run-dir files are.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { READ_FLAGS } from './rundir/guards';
import { writeAtomic } from './rundir/safe-fs';

export function userStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'track-launch');
}

/** The text of `rel` under the state directory; undefined if it is missing. Throws (with why) if it
 *  is a symlink, not a regular file, someone else's, or over `maxBytes`. */
export function readUserState(rel: string, maxBytes: number, env = process.env): string | undefined {
  const file = path.join(userStateDir(env), rel);
  let fd: number;
  try {
    fd = fs.openSync(file, READ_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new Error(code === 'ELOOP' ? `${file} is a symbolic link (not followed)` : `${file}: ${code}`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) throw new Error(`${file} belongs to user ${st.uid}, not to you`);
    if (st.size > maxBytes) throw new Error(`${file} is ${st.size} bytes, over ${maxBytes}`);
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `rel` under the state directory as a run-dir file is written (writeAtomic: a private
 *  temporary file, fsync, rename; no link followed, directories 0700). */
export function writeUserState(rel: string, text: string, env = process.env): void {
  const root = userStateDir(env);
  writeAtomic(root, path.join(root, rel), text);
}
