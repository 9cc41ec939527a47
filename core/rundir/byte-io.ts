// Byte I/O on the run directory's growing files (logs, line times, resource samples, spools), each
// opened through guards.ts's openRegular. What waits on the disk (fsync, reads over SYNC_READ_MAX) runs
// on libuv's thread pool, so an ingest keeps its requests in flight; other calls are plain, as a trip
// through the thread pool costs many times the CPU of such a call.
import * as fs from 'fs';
import { Readable } from 'stream';
import { promisify } from 'util';
import { openRegular, READ_FLAGS, WRITE_FLAGS } from './guards';
import { openAppend } from './safe-fs';

const fsyncAsync = promisify(fs.fsync);
const readAsync = promisify(fs.read);

/** Reads up to this size are made in place (page cache); longer ones may wait on shared storage. */
const SYNC_READ_MAX = 256 << 10;

/** One read of up to `length` bytes into the start of `buf`, at `at`: the bytes read. */
async function readOnce(fd: number, buf: Buffer, length: number, at: number): Promise<number> {
  if (length <= SYNC_READ_MAX) return fs.readSync(fd, buf, 0, length, at);
  return (await readAsync(fd, buf, 0, length, at)).bytesRead;
}

/** Bytes [from, from + max) of a file (fewer at its end); empty when it is not there. */
export async function readRange(root: string, file: string, from: number, max: number): Promise<Buffer> {
  return (await readRangeOf(root, file, from, max))?.bytes ?? Buffer.alloc(0);
}

/** readRange, with the identity (device, inode) and size of the file read, so that a follower sees
 *  a file truncated or replaced; undefined when it is not there. */
export async function readRangeOf(
  root: string,
  file: string,
  from: number,
  max: number,
): Promise<{ bytes: Buffer; id: string; size: number } | undefined> {
  const opened = openRegular(root, file, READ_FLAGS);
  if (!opened) return undefined;
  const { fd, st } = opened;
  try {
    const buf = Buffer.alloc(Math.max(0, Math.min(max, st.size - from)));
    let n = 0;
    for (let got = -1; got !== 0 && n < buf.length; n += got)
      got = await readOnce(fd, buf.subarray(n), buf.length - n, from + n);
    return { bytes: buf.subarray(0, n), id: `${st.dev}:${st.ino}`, size: st.size };
  } finally {
    fs.closeSync(fd);
  }
}

/** Append and flush to disk (the state that points past it is written only afterwards). */
export async function appendDurable(root: string, file: string, data: string): Promise<void> {
  if (data === '') return;
  const fd = openAppend(root, file);
  try {
    fs.writeFileSync(fd, data);
    await fsyncAsync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Cut a file back to `size` bytes when it is longer (never through a link); nothing when missing. */
export async function truncateTo(root: string, file: string, size: number): Promise<void> {
  const opened = openRegular(root, file, WRITE_FLAGS);
  if (!opened) return;
  const { fd, st } = opened;
  try {
    if (st.size > size) {
      fs.ftruncateSync(fd, size);
      await fsyncAsync(fd);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Where the next newline is at or after `from`, or -1 with how far the file was looked at (its
 *  size then). Looks through `window` bytes at a time in one buffer, so memory stays bounded
 *  however far the newline is (a 600 MB line without one). */
export async function findNewline(
  root: string,
  file: string,
  from: number,
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
      const i = buf.subarray(0, bytesRead).indexOf(0x0a);
      if (i >= 0) return { at: pos + i, scanned: pos + i };
      pos += bytesRead;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** A file (a log) as a stream of chunks of at most `chunk` bytes, for uploads of any size (a rank log
 *  over 2 GiB cannot be one Buffer). `size` is fixed when it is opened: a log that grows meanwhile is sent
 *  up to there, so a Content-Length of `size` holds. The stream closes the file when it ends or fails;
 *  a caller that does not read it must destroy() it. Undefined when the file is not there. */
export async function openLogStream(
  root: string,
  file: string,
  chunk = 1 << 20,
): Promise<{ size: number; stream: NodeJS.ReadableStream & { destroy(): void } } | undefined> {
  const opened = openRegular(root, file, READ_FLAGS);
  if (!opened) return undefined;
  const { fd } = opened;
  const size = opened.st.size;
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
