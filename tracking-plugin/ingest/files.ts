// Small file primitives for crash-safe state: atomic JSON replace, appends, truncation, a lock.
import { promises as fs, constants as C } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TrackLaunchError } from '../../core';

/** Write JSON so that a reader (or a crash) sees the old or the new file, never half of one. */
export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  const fh = await fs.open(tmp, 'w');
  try {
    await fh.writeFile(JSON.stringify(value, null, 1) + '\n');
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.rename(tmp, file);
}

export async function readJsonFile<T>(file: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new TrackLaunchError('RUN_DIR', `${file} is damaged (${(err as Error).message})`, {
      hint: 'it is written atomically, so something else changed it; move the tracking/ directory away to start ingestion over',
    });
  }
}

/** Append and flush to disk (the state that points past it is written only afterwards). */
export async function appendDurable(file: string, data: string): Promise<void> {
  if (data === '') return;
  const fh = await fs.open(file, 'a');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Cut a spool back to its committed size (bytes appended before a crash, never committed). */
export async function truncateTo(file: string, size: number): Promise<void> {
  try {
    const st = await fs.stat(file);
    if (st.size > size) await fs.truncate(file, size);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Read bytes [from, to) of a file (to = undefined: to the end), at most `max` bytes. */
export async function readRange(file: string, from: number, max: number): Promise<Buffer> {
  let fh;
  try {
    fh = await fs.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
    throw err;
  }
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

/** One ingester per run dir: a lock file with pid and host; a dead holder's lock is taken over. */
export async function acquireLock(dir: string): Promise<() => Promise<void>> {
  const file = path.join(dir, 'lock');
  const me = `${process.pid} ${os.hostname()}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fh = await fs.open(file, C.O_CREAT | C.O_EXCL | C.O_WRONLY);
      await fh.writeFile(me + '\n');
      await fh.close();
      return async () => {
        await fs.rm(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = (await fs.readFile(file, 'utf8').catch(() => '')).trim();
      const [pid, host] = holder.split(' ');
      if (host === os.hostname() && pid && !alive(Number(pid))) {
        await fs.rm(file, { force: true }); // its process is gone: the lock is stale
        continue;
      }
      throw new TrackLaunchError(
        'TRACKING',
        `another ingest holds ${file} (pid ${pid ?? '?'} on ${host ?? '?'})`,
        {
          hint: `wait for it to finish (or, if that process is gone, remove ${file})`,
        },
      );
    }
  }
  throw new TrackLaunchError('TRACKING', `cannot take the lock ${file}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
