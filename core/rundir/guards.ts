// The trust rules every run-directory primitive applies (docs/architecture.md), and the one open and
// the one create that apply them: a path stays inside its run directory, no directory between the
// run directory and a file is a symlink, only regular files are opened, new files get exactly their
// mode, and a refusal is a RUN_DIR error that names the file and says what to do.
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError } from '../errors';

const C = fs.constants;

/** Files are created 0600 and directories 0700 unless a caller asks for more, whatever the umask. */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** Open flags: never follow a symlink; never block on a FIFO (it is refused once opened). */
export const READ_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK;
export const WRITE_FLAGS = C.O_WRONLY | C.O_NOFOLLOW | C.O_NONBLOCK;
export const APPEND_FLAGS = WRITE_FLAGS | C.O_APPEND;

export function refusal(file: string, why: string, hint?: string): TrackLaunchError {
  return new TrackLaunchError('RUN_DIR', `${file} ${why}`, {
    hint:
      hint ??
      'The run directory is read as untrusted input: replace it by a regular file (or move it away) and try again.',
    details: { file },
  });
}

export const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** ELOOP/EMLINK: O_NOFOLLOW met a symlink; ENXIO: a FIFO without reader or a socket. Else the error as it is. */
function openError(err: unknown, file: string): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'EMLINK')
    return refusal(
      file,
      'is a symbolic link; track-launch does not follow links in a run directory or in its state directory',
    );
  if (code === 'ENXIO') return refusal(file, 'is not a regular file');
  return err;
}

export function checkRegular(st: fs.Stats | fs.BigIntStats, file: string): void {
  if (st.isSymbolicLink()) throw openError({ code: 'ELOOP' }, file);
  if (!st.isFile()) throw refusal(file, 'is not a regular file');
}

export function checkSize(size: number, limit: number, file: string): void {
  if (size > limit) {
    throw refusal(
      file,
      `is ${size} bytes, over the limit of ${limit} bytes for this file`,
      'track-launch does not write this file that large: check what wrote it, and move it away to go on',
    );
  }
}

/** A path into the run directory `root`, checked to stay inside it. */
export function inside(root: string, target: string): string {
  const rel = path.relative(root, target);
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    throw new TrackLaunchError('RUN_DIR', `${target} is outside the run directory ${root}`, {
      hint: 'this is a bug in track-launch: please report it',
    });
  }
  return rel;
}

/** Open `file` with `flags` (no link followed) once the directories on the way pass checkDirs, and
 *  check that it is a regular file: its fd (the caller closes it) and fstat; undefined when it or a
 *  directory on the way is not there. */
export function openRegular(
  root: string,
  file: string,
  flags: number,
): { fd: number; st: fs.Stats } | undefined {
  if (!checkDirs(root, path.dirname(file))) return undefined;
  let fd: number;
  try {
    fd = fs.openSync(file, flags);
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw openError(err, file);
  }
  try {
    const st = fs.fstatSync(fd);
    checkRegular(st, file);
    return { fd, st };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** Create `file` (O_EXCL, so never through a link) with exactly `mode`, and `flags` besides: its fd
 *  (the caller closes it), or undefined when something is there already. */
export function createNew(file: string, mode: number, flags = 0): number | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, WRITE_FLAGS | C.O_CREAT | C.O_EXCL | flags, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw openError(err, file);
  }
  try {
    fs.fchmodSync(fd, mode);
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  return fd;
}

/** lstat every directory from below `root` down to `dir`: a symlink or a non-directory there is
 *  refused. False when one of them does not exist (yet). */
export function checkDirs(root: string, dir: string): boolean {
  const rel = inside(root, dir);
  let at = root;
  for (const part of rel === '' ? [] : rel.split(path.sep)) {
    at = path.join(at, part);
    const st = fs.lstatSync(at, { throwIfNoEntry: false });
    if (!st) return false;
    if (st.isSymbolicLink()) throw openError({ code: 'ELOOP' }, at);
    if (!st.isDirectory()) throw refusal(at, 'is not a directory');
  }
  return true;
}
