// Synchronous run-directory primitives (small files: JSON, scripts, reports, listings). Every call
// names the run directory `root` it works in; guards.ts holds the trust rules they share.
// Growing files (logs, spools) are read and appended by byte-io.ts (fsyncs off the event loop).
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError } from '../errors';
import {
  APPEND_FLAGS,
  checkDirs,
  checkOwner,
  checkRegular,
  checkSize,
  CREATE_NEW_FLAGS,
  DIR_MODE,
  FILE_MODE,
  inside,
  isMissing,
  openError,
  READ_FLAGS,
  refusal,
  WRITE_FLAGS,
} from './guards';

/** Size and modification time of a regular file; undefined when it is not there. */
export function statFile(root: string, file: string): { size: number; mtimeMs: number } | undefined {
  if (!checkDirs(root, path.dirname(file))) return undefined;
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
  checkRegular(st, file);
  return { size: st.size, mtimeMs: st.mtimeMs };
}

/** A regular file's bytes, at most `limit` of them (else a RUN_DIR error); undefined when missing.
 *  `ownOnly`: a file of another user is refused too (checkOwner). */
export function readBounded(
  root: string,
  file: string,
  limit: number,
  opts: { ownOnly?: boolean } = {},
): Buffer | undefined {
  if (!checkDirs(root, path.dirname(file))) return undefined;
  let fd: number;
  try {
    fd = fs.openSync(file, READ_FLAGS);
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw openError(err, file);
  }
  try {
    const st = fs.fstatSync(fd);
    checkRegular(st, file);
    if (opts.ownOnly) checkOwner(st, file);
    checkSize(st.size, limit, file);
    // Also what was appended since the fstat, within the limit (a torn end is the caller's to judge).
    const buf = Buffer.alloc(Math.min(limit + 1, st.size + 65536));
    let n = 0;
    for (let got = -1; got !== 0 && n < buf.length; n += got)
      got = fs.readSync(fd, buf, n, buf.length - n, n);
    checkSize(n, limit, file);
    return buf.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

/** Names in a directory of the run directory; none when it is not there. */
export function listDir(root: string, dir: string): string[] {
  if (!checkDirs(root, dir)) return [];
  try {
    return fs.readdirSync(dir);
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
}

/** mkdir -p below `root` (and `root` itself): new directories get `mode`; a symlink on the way is refused. */
export function ensureDir(root: string, dir: string, mode = DIR_MODE): void {
  if (!fs.existsSync(root)) {
    fs.mkdirSync(root, { recursive: true, mode });
    fs.chmodSync(root, mode);
  }
  let at = root;
  for (const part of inside(root, dir)
    .split(path.sep)
    .filter((p) => p !== '')) {
    at = path.join(at, part);
    try {
      fs.mkdirSync(at, { mode });
      fs.chmodSync(at, mode);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      checkDirs(root, at); // there already: refused before anything is created through a link
    }
  }
}

/** Create `file` only if it does not exist (no link followed); false when it exists already. */
export function createExclusive(
  root: string,
  file: string,
  data: string | Buffer,
  mode = FILE_MODE,
): boolean {
  ensureDir(root, path.dirname(file));
  let fd: number;
  try {
    fd = fs.openSync(file, CREATE_NEW_FLAGS, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw openError(err, file);
  }
  try {
    fs.fchmodSync(fd, mode);
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** Write via a new temporary file, fsync it, rename it over `file` and fsync the directory: a
 *  reader or a crash sees the old or the new file, never half of one. A symlink at `file` is
 *  replaced, never written through. */
export function writeAtomic(root: string, file: string, data: string | Buffer, mode = FILE_MODE): void {
  const tmp = `${file}.${process.pid}.tmp`;
  if (!createExclusive(root, tmp, data, mode)) {
    fs.unlinkSync(tmp); // left by a crashed process with our pid (unlink never follows a link)
    if (!createExclusive(root, tmp, data, mode)) throw refusal(tmp, 'keeps reappearing');
  }
  try {
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  syncDir(path.dirname(file));
}

/** fsync a directory, so that a rename in it survives a crash. */
export function syncDir(dir: string): void {
  const fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  try {
    fs.fsyncSync(fd);
  } catch (err) {
    // Some file systems cannot fsync a directory (EINVAL); the rename is then as durable as they make it.
    if ((err as NodeJS.ErrnoException).code !== 'EINVAL') throw err;
  } finally {
    fs.closeSync(fd);
  }
}

/** An fd to append to (created with `mode` when missing), e.g. for a child's stdout. The caller closes it. */
export function openAppend(root: string, file: string, mode = FILE_MODE): number {
  ensureDir(root, path.dirname(file));
  try {
    const fd = fs.openSync(file, CREATE_NEW_FLAGS | APPEND_FLAGS, mode);
    fs.fchmodSync(fd, mode);
    return fd;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw openError(err, file);
  }
  let fd: number;
  try {
    fd = fs.openSync(file, APPEND_FLAGS | WRITE_FLAGS);
  } catch (err) {
    throw openError(err, file);
  }
  try {
    checkRegular(fs.fstatSync(fd), file);
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  return fd;
}

/** Remove a file (a link is removed, not followed); nothing when it is not there. */
export function removeFile(root: string, file: string): void {
  if (!checkDirs(root, path.dirname(file))) return;
  fs.rmSync(file, { force: true });
}

/** Remove a directory below `root` with what is in it (links inside are removed, not followed). */
export function removeTree(root: string, dir: string): void {
  inside(root, dir);
  fs.rmSync(dir, { recursive: true, force: true });
}

/** The run directory itself (which the user named, so a link to it is followed) exists and is one. */
export function assertRunDir(runDir: string): void {
  const st = fs.statSync(runDir, { throwIfNoEntry: false });
  if (!st) throw new TrackLaunchError('NOT_FOUND', `run directory ${runDir} does not exist`);
  if (!st.isDirectory()) throw new TrackLaunchError('NOT_FOUND', `${runDir} is not a directory`);
}
