// Asynchronous byte I/O on the run directory's growing files: the rank logs and their line times,
// the node resource samples, the tracking spools. Same trust rules as safe-fs.ts (guards.ts):
// no link followed, regular files only, files created with an explicit mode.
import { promises as fs } from 'fs';
import type { FileHandle } from 'fs/promises';
import * as path from 'path';
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
  WRITE_FLAGS,
} from './guards';
import { ensureDir } from './safe-fs';

/** Open a regular file with `flags`; undefined when it (or its directory) is not there. */
async function openRegular(root: string, file: string, flags: number): Promise<FileHandle | undefined> {
  if (!checkDirs(root, path.dirname(file))) return undefined;
  let fh: FileHandle;
  try {
    fh = await fs.open(file, flags);
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw openError(err, file);
  }
  try {
    checkRegular(await fh.stat(), file);
  } catch (err) {
    await fh.close();
    throw err;
  }
  return fh;
}

/** Bytes [from, from + max) of a file (fewer at its end); empty when it is not there. */
export async function readRange(root: string, file: string, from: number, max: number): Promise<Buffer> {
  const fh = await openRegular(root, file, READ_FLAGS);
  if (!fh) return Buffer.alloc(0);
  try {
    const size = (await fh.stat()).size;
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
  const fh = await openRegular(root, file, READ_FLAGS);
  if (!fh) return undefined;
  try {
    const size = (await fh.stat()).size;
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
    fh = existing;
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
  const fh = await openRegular(root, file, WRITE_FLAGS);
  if (!fh) return;
  try {
    if ((await fh.stat()).size > size) {
      await fh.truncate(size);
      await fh.sync();
    }
  } finally {
    await fh.close();
  }
}
