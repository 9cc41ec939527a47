// Asynchronous byte I/O on the run directory's growing files: the rank logs and their line times,
// the node resource samples, the tracking spools. Same trust rules as safe-fs.ts (guards.ts):
// no link followed, regular files only, files created with an explicit mode.
import { constants, promises as fs } from 'fs';
import type { FileHandle } from 'fs/promises';
import * as path from 'path';
import { Readable } from 'stream';
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

/** Open a regular file with `flags`, with its size when opened (from the check's own fstat);
 *  undefined when it (or its directory) is not there. */
async function openRegular(
  root: string,
  file: string,
  flags: number,
): Promise<{ fh: FileHandle; size: number } | undefined> {
  if (!checkDirs(root, path.dirname(file))) return undefined;
  let fh: FileHandle;
  try {
    fh = await fs.open(file, flags);
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw openError(err, file);
  }
  try {
    const st = await fh.stat();
    checkRegular(st, file);
    return { fh, size: st.size };
  } catch (err) {
    await fh.close();
    throw err;
  }
}

/** Bytes [from, from + max) of a file (fewer at its end); empty when it is not there. */
export async function readRange(root: string, file: string, from: number, max: number): Promise<Buffer> {
  const opened = await openRegular(root, file, READ_FLAGS);
  if (!opened) return Buffer.alloc(0);
  const { fh, size } = opened;
  try {
    const n = Math.max(0, Math.min(max, size - from));
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, from);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** A whole file of at most `limit` bytes (else a RUN_DIR error); undefined when it is not there. */
export async function readWhole(root: string, file: string, limit: number): Promise<Buffer | undefined> {
  const opened = await openRegular(root, file, READ_FLAGS);
  if (!opened) return undefined;
  const { fh, size } = opened;
  try {
    checkSize(size, limit, file);
    const buf = Buffer.alloc(size);
    const { bytesRead } = await fh.read(buf, 0, size, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
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
  let fh: FileHandle;
  try {
    fh = await fs.open(file, CREATE_NEW_FLAGS | APPEND_FLAGS, mode);
    await fh.chmod(mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw openError(err, file);
    const existing = await openRegular(root, file, APPEND_FLAGS | WRITE_FLAGS);
    if (!existing) return appendDurable(root, file, data, mode); // removed meanwhile: create it
    fh = existing.fh;
  }
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Cut a file back to `size` bytes when it is longer (never through a link); nothing when missing. */
export async function truncateTo(root: string, file: string, size: number): Promise<void> {
  const opened = await openRegular(root, file, WRITE_FLAGS);
  if (!opened) return;
  const { fh } = opened;
  try {
    if (opened.size > size) {
      await fh.truncate(size);
      await fh.sync();
    }
  } finally {
    await fh.close();
  }
}

/** writeAtomic (safe-fs.ts) without blocking the event loop while the disk syncs: the same steps
 *  (a new temporary file, fsync, rename over `file`, fsync of the directory), each on libuv's
 *  thread pool, for a writer that keeps requests in flight meanwhile (an fsync on shared storage
 *  can take tens of milliseconds). Callers serialise their writes to one file (the temporary name
 *  is per process). */
export async function writeAtomicAsync(
  root: string,
  file: string,
  data: string | Buffer,
  mode = FILE_MODE,
): Promise<void> {
  ensureDir(root, path.dirname(file));
  const tmp = `${file}.${process.pid}.tmp`;
  let fh: FileHandle;
  try {
    fh = await fs.open(tmp, CREATE_NEW_FLAGS, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw openError(err, tmp);
    await fs.unlink(tmp); // left by a crashed process with our pid (unlink never follows a link)
    try {
      fh = await fs.open(tmp, CREATE_NEW_FLAGS, mode);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === 'EEXIST') throw refusal(tmp, 'keeps reappearing');
      throw openError(again, tmp);
    }
  }
  try {
    await fh.chmod(mode);
    await fh.writeFile(data);
    await fh.sync();
  } catch (err) {
    await fh.close();
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await syncDirAsync(path.dirname(file));
}

/** syncDir (safe-fs.ts) on the thread pool. */
async function syncDirAsync(dir: string): Promise<void> {
  const fh = await fs.open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await fh.sync();
  } catch (err) {
    // as syncDir: some file systems cannot fsync a directory (EINVAL)
    if ((err as NodeJS.ErrnoException).code !== 'EINVAL') throw err;
  } finally {
    await fh.close();
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
  const opened = await openRegular(root, file, READ_FLAGS);
  if (!opened) return { at: -1, scanned: from };
  const { fh } = opened;
  const buf = Buffer.allocUnsafe(window);
  try {
    for (let pos = from; ;) {
      const { bytesRead } = await fh.read(buf, 0, window, pos);
      if (bytesRead === 0) return { at: -1, scanned: pos };
      const i = buf.subarray(0, bytesRead).indexOf(byte);
      if (i >= 0) return { at: pos + i, scanned: pos + i };
      pos += bytesRead;
    }
  } finally {
    await fh.close();
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
  const opened = await openRegular(root, file, READ_FLAGS);
  if (!opened) return undefined;
  const { fh, size } = opened;
  if (size === 0) {
    await fh.close();
    return { size, stream: Readable.from([]) };
  }
  const stream = fh.createReadStream({ start: 0, end: size - 1, highWaterMark: chunk, autoClose: true });
  return { size, stream };
}
