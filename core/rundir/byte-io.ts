// Byte I/O on the run directory's growing files: the rank logs and their line times, the node
// resource samples, the tracking spools. Same trust rules as safe-fs.ts (guards.ts): no link
// followed, regular files only, files created with an explicit mode.
// What waits on the disk (fsync; reads of more than SYNC_READ_MAX) runs on libuv's thread pool, so a
// sync keeps its requests in flight meanwhile; open, fstat, small reads and writes, rename and close
// are plain calls. Each trip through the pool cost 35-45 us of CPU here against 3 us for the call
// itself, and an ingest of 32 ranks made about 700 of them: on a server that shares the client's
// cores, that CPU is the server's (BENCHMARKS.md).
import * as fs from 'fs';
import * as path from 'path';
import { Readable } from 'stream';
import { promisify } from 'util';
import {
  APPEND_FLAGS,
  checkDirs,
  checkRegular,
  checkSize,
  CREATE_NEW_FLAGS,
  FILE_MODE,
  isMissing,
  openError,
  READ_FLAGS,
  refusal,
  WRITE_FLAGS,
} from './guards';
import { ensureDir } from './safe-fs';

const fsyncAsync = promisify(fs.fsync);
const readAsync = promisify(fs.read);
const renameAsync = promisify(fs.rename);

/** Reads up to this size are made in place (from the page cache, a few microseconds); longer ones,
 *  which may wait on shared storage, go to the thread pool. */
const SYNC_READ_MAX = 256 << 10;

/** Open a regular file with `flags`, with its size when opened (from the check's own fstat);
 *  undefined when it (or its directory) is not there. */
function openRegular(root: string, file: string, flags: number): { fd: number; size: number } | undefined {
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
    return { fd, size: st.size };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** One read of up to `length` bytes into the start of `buf`, at `at`: the bytes read. */
async function readOnce(fd: number, buf: Buffer, length: number, at: number): Promise<number> {
  if (length <= SYNC_READ_MAX) return fs.readSync(fd, buf, 0, length, at);
  return (await readAsync(fd, buf, 0, length, at)).bytesRead;
}

/** Fill `buf` from `fd` at `at`, as far as the file goes: the bytes read. */
async function readInto(fd: number, buf: Buffer, at: number): Promise<number> {
  let n = 0;
  for (let got = -1; got !== 0 && n < buf.length; n += got)
    got = await readOnce(fd, buf.subarray(n), buf.length - n, at + n);
  return n;
}

/** fsync, on the thread pool. */
const syncFd = (fd: number): Promise<void> => fsyncAsync(fd);

/** Bytes [from, from + max) of a file (fewer at its end); empty when it is not there. */
export async function readRange(root: string, file: string, from: number, max: number): Promise<Buffer> {
  const opened = openRegular(root, file, READ_FLAGS);
  if (!opened) return Buffer.alloc(0);
  const { fd, size } = opened;
  try {
    const buf = Buffer.alloc(Math.max(0, Math.min(max, size - from)));
    return buf.subarray(0, await readInto(fd, buf, from));
  } finally {
    fs.closeSync(fd);
  }
}

/** A whole file of at most `limit` bytes (else a RUN_DIR error); undefined when it is not there. */
export async function readWhole(root: string, file: string, limit: number): Promise<Buffer | undefined> {
  const opened = openRegular(root, file, READ_FLAGS);
  if (!opened) return undefined;
  const { fd, size } = opened;
  try {
    checkSize(size, limit, file);
    const buf = Buffer.alloc(size);
    return buf.subarray(0, await readInto(fd, buf, 0));
  } finally {
    fs.closeSync(fd);
  }
}

/** Write all of `data` at the fd's offset (the file's end for an fd opened with O_APPEND). */
function writeAll(fd: number, data: string | Buffer): void {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  for (let n = 0; n < buf.length;) n += fs.writeSync(fd, buf, n, buf.length - n);
}

/** Append and flush to disk (the state that points past it is written only afterwards). A new
 *  file is created with `mode`. */
export async function appendDurable(
  root: string,
  file: string,
  data: string,
  mode = FILE_MODE,
): Promise<void> {
  if (data === '') return;
  ensureDir(root, path.dirname(file));
  let fd: number;
  try {
    fd = fs.openSync(file, CREATE_NEW_FLAGS | APPEND_FLAGS, mode);
    try {
      fs.fchmodSync(fd, mode);
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw openError(err, file);
    const existing = openRegular(root, file, APPEND_FLAGS | WRITE_FLAGS);
    if (!existing) return appendDurable(root, file, data, mode); // removed meanwhile: create it
    fd = existing.fd;
  }
  try {
    writeAll(fd, data);
    await syncFd(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Cut a file back to `size` bytes when it is longer (never through a link); nothing when missing. */
export async function truncateTo(root: string, file: string, size: number): Promise<void> {
  const opened = openRegular(root, file, WRITE_FLAGS);
  if (!opened) return;
  const { fd } = opened;
  try {
    if (opened.size > size) {
      fs.ftruncateSync(fd, size);
      await syncFd(fd);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** writeAtomic (safe-fs.ts) without blocking the event loop while the disk syncs: the same steps
 *  (a new temporary file, fsync, rename over `file`, fsync of the directory), the two fsyncs on
 *  the thread pool, for a writer that keeps requests in flight meanwhile (an fsync on shared
 *  storage can take tens of milliseconds). Callers serialise their writes to one file (the
 *  temporary name is per process). */
export async function writeAtomicAsync(
  root: string,
  file: string,
  data: string | Buffer,
  mode = FILE_MODE,
): Promise<void> {
  ensureDir(root, path.dirname(file));
  const tmp = `${file}.${process.pid}.tmp`;
  let fd: number;
  try {
    fd = fs.openSync(tmp, CREATE_NEW_FLAGS, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw openError(err, tmp);
    fs.unlinkSync(tmp); // left by a crashed process with our pid (unlink never follows a link)
    try {
      fd = fs.openSync(tmp, CREATE_NEW_FLAGS, mode);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === 'EEXIST') throw refusal(tmp, 'keeps reappearing');
      throw openError(again, tmp);
    }
  }
  try {
    fs.fchmodSync(fd, mode);
    writeAll(fd, data);
    await syncFd(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  try {
    await renameAsync(tmp, file); // may wait on the file system's journal, as an fsync does
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  await syncDirAsync(path.dirname(file));
}

/** syncDir (safe-fs.ts) with the fsync on the thread pool. */
async function syncDirAsync(dir: string): Promise<void> {
  const fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  try {
    await syncFd(fd);
  } catch (err) {
    // as syncDir: some file systems cannot fsync a directory (EINVAL)
    if ((err as NodeJS.ErrnoException).code !== 'EINVAL') throw err;
  } finally {
    fs.closeSync(fd);
  }
}

/** The offset of the first `byte` at or after `from`, or -1 with how far the file was looked at
 *  (its size then). Looks through `window` bytes at a time in one buffer, so memory stays bounded
 *  however far the byte is (a 600 MB line without its newline). */
export async function findByte(
  root: string,
  file: string,
  from: number,
  byte: number,
  window = 8 << 20,
): Promise<{ at: number; scanned: number }> {
  const opened = openRegular(root, file, READ_FLAGS);
  if (!opened) return { at: -1, scanned: from };
  const { fd } = opened;
  const buf = Buffer.allocUnsafe(window);
  try {
    for (let pos = from; ;) {
      const bytesRead = await readOnce(fd, buf, window, pos);
      if (bytesRead === 0) return { at: -1, scanned: pos };
      const i = buf.subarray(0, bytesRead).indexOf(byte);
      if (i >= 0) return { at: pos + i, scanned: pos + i };
      pos += bytesRead;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** A file as a stream of chunks of at most `chunk` bytes, for uploads of any size (a rank log over
 *  2 GiB cannot be one Buffer). `size` is fixed when it is opened: a log that grows meanwhile is sent
 *  up to there, so a Content-Length of `size` holds. The stream closes the file when it ends or fails;
 *  a caller that does not read it must destroy() it. Undefined when the file is not there. */
export async function openByteStream(
  root: string,
  file: string,
  chunk = 1 << 20,
): Promise<{ size: number; stream: NodeJS.ReadableStream & { destroy(): void } } | undefined> {
  const opened = openRegular(root, file, READ_FLAGS);
  if (!opened) return undefined;
  const { fd, size } = opened;
  if (size === 0) {
    fs.closeSync(fd);
    return { size, stream: Readable.from([]) };
  }
  const stream = fs.createReadStream('', {
    fd,
    start: 0,
    end: size - 1,
    highWaterMark: chunk,
    autoClose: true,
  });
  return { size, stream };
}
