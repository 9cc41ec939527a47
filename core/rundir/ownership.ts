// An existing run directory is trusted only when it is the user's own and nobody else can write
// into it: otherwise another user could swap its scripts or logs under the job.
import * as fs from 'fs';
import { TrackLaunchError } from '../errors';

/** Refuses a run directory that is a symlink, not a directory, owned by another user, or
 *  writable by its group or others. */
export function checkRunDirOwnership(dir: string): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    throw new TrackLaunchError('NOT_FOUND', `run directory ${dir} does not exist`, { cause: err });
  }
  const refuse = (why: string, hint: string) =>
    new TrackLaunchError('RUN_DIR', `run directory ${dir} ${why}`, { hint, details: { run_dir: dir } });
  if (st.isSymbolicLink())
    throw refuse('is a symbolic link', 'Pass the directory it points to, after checking that it is yours.');
  if (!st.isDirectory()) throw refuse('is not a directory', 'Choose a new --run-dir.');
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw refuse(
      `is owned by user id ${st.uid}, not by you (${uid})`,
      'Choose a --run-dir of your own (or leave it out to get a fresh one under ./runs/).',
    );
  }
  if ((st.mode & 0o022) !== 0) {
    throw refuse(
      `is writable by its group or by others (mode ${(st.mode & 0o777).toString(8)})`,
      `Run \`chmod go-w ${dir}\`, or choose another --run-dir.`,
    );
  }
}
