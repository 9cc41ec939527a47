// The run-directory primitives for small files (JSON, scripts, reports, listings), plain synchronous
// calls, and the atomic replace of a file, also with its waits on the disk off the event loop. Every
// call names the run directory `root` it works in; guards.ts holds the trust rules and the one open.
// Growing files (logs, spools) are read and appended by byte-io.ts.
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { TrackLaunchError } from '../errors';
import {
  APPEND_FLAGS,
  checkDirs,
  checkRegular,
  checkSize,
  createNew,
  DIR_MODE,
  FILE_MODE,
  inside,
  isMissing,
  openRegular,
  READ_FLAGS,
  refusal,
} from './guards';

const fsyncAsync = promisify(fs.fsync);
const renameAsync = promisify(fs.rename);

/** Size and modification time of a regular file, and `version`: which file it is (device, inode) and
 *  when it last changed, different after any write or replace; undefined when it is not there. */
export function statFile(
  root: string,
  file: string,
): { size: number; mtimeMs: number; version: string } | undefined {
  if (!checkDirs(root, path.dirname(file))) return undefined;
  const st = fs.lstatSync(file, { throwIfNoEntry: false, bigint: true });
  if (!st) return undefined;
  checkRegular(st, file);
  const version = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  return { size: Number(st.size), mtimeMs: Number(st.mtimeMs), version };
}

/** A regular file's bytes, at most `limit` of them (else a RUN_DIR error); undefined when missing. */
export function readBounded(root: string, file: string, limit: number): Buffer | undefined {
  const opened = openRegular(root, file, READ_FLAGS);
  if (!opened) return undefined;
  const { fd, st } = opened;
  try {
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

/** Set a regular file's modification time to now, its content untouched (a heartbeat); false when
 *  it is not there. */
export function touchFile(root: string, file: string): boolean {
  const opened = openRegular(root, file, READ_FLAGS);
  if (!opened) return false;
  try {
    const now = new Date();
    fs.futimesSync(opened.fd, now, now);
  } finally {
    fs.closeSync(opened.fd);
  }
  return true;
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
export function createExclusive(root: string, file: string, data: string | Buffer): boolean {
  ensureDir(root, path.dirname(file));
  const fd = createNew(file, FILE_MODE);
  if (fd === undefined) return false;
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** The first half of an atomic write: `data` in a new temporary file beside `file`, with `mode`. */
function writeTemp(
  root: string,
  file: string,
  data: string | Buffer,
  mode: number,
): { tmp: string; fd: number } {
  ensureDir(root, path.dirname(file));
  const tmp = `${file}.${process.pid}.tmp`;
  let fd = createNew(tmp, mode);
  if (fd === undefined) {
    fs.unlinkSync(tmp); // left by a crashed process with our pid (unlink never follows a link)
    fd = createNew(tmp, mode);
    if (fd === undefined) throw refusal(tmp, 'keeps reappearing');
  }
  try {
    fs.writeFileSync(fd, data);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  return { tmp, fd };
}

/** Write via a new temporary file, fsync it, rename it over `file` and fsync the directory: a
 *  reader or a crash sees the old or the new file, never half of one. A symlink at `file` is
 *  replaced, never written through. */
export function writeAtomic(root: string, file: string, data: string | Buffer, mode = FILE_MODE): void {
  const { tmp, fd } = writeTemp(root, file, data, mode);
  try {
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  syncDir(path.dirname(file));
}

/** writeAtomic with the fsyncs and the rename on the thread pool, for a writer that keeps requests
 *  in flight meanwhile. Callers serialise their writes to one file (the temporary name is per process). */
export async function writeAtomicAsync(
  root: string,
  file: string,
  data: string | Buffer,
  mode = FILE_MODE,
): Promise<void> {
  const { tmp, fd } = writeTemp(root, file, data, mode);
  try {
    try {
      await fsyncAsync(fd);
    } finally {
      fs.closeSync(fd);
    }
    await renameAsync(tmp, file); // may wait on the file system's journal, as an fsync does
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  await syncDirAsync(path.dirname(file));
}

const DIR_FLAGS = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY;

/** Some file systems cannot fsync a directory (EINVAL): a rename there is then as durable as they make it. */
function unlessEinval(err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== 'EINVAL') throw err;
}

/** fsync a directory, so that a rename in it survives a crash. */
function syncDir(dir: string): void {
  const fd = fs.openSync(dir, DIR_FLAGS);
  try {
    fs.fsyncSync(fd);
  } catch (err) {
    unlessEinval(err);
  } finally {
    fs.closeSync(fd);
  }
}

/** syncDir with the fsync on the thread pool. */
export async function syncDirAsync(dir: string): Promise<void> {
  const fd = fs.openSync(dir, DIR_FLAGS);
  await fsyncAsync(fd)
    .catch(unlessEinval)
    .finally(() => fs.closeSync(fd));
}

/** An fd to append to (created when missing), e.g. for a child's stdout. The caller closes it. */
export function openAppend(root: string, file: string): number {
  // the file there already is the common case (a spool every cycle): one check of the way, one open
  const there = openRegular(root, file, APPEND_FLAGS)?.fd;
  if (there !== undefined) return there;
  ensureDir(root, path.dirname(file));
  const fd = createNew(file, FILE_MODE, APPEND_FLAGS) ?? openRegular(root, file, APPEND_FLAGS)?.fd;
  return fd ?? openAppend(root, file); // removed meanwhile: create it
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
