// Versioned JSON files of the run directory: read with a version check, write atomically.
import * as fs from 'fs';
import { TrackLaunchError } from '../errors';

export function readVersionedJson<T extends { version: number }>(
  file: string,
  version: number,
  what: string,
): T {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new TrackLaunchError('NOT_FOUND', `${file} does not exist`, {
        hint: `Is this a track-launch run directory? It has no ${what}.`,
      });
    }
    throw e;
  }
  let data: T;
  try {
    data = JSON.parse(text) as T;
  } catch (e) {
    throw new TrackLaunchError('RUN_DIR', `${file} is not valid JSON (${(e as Error).message})`);
  }
  if (data.version !== version) {
    throw new TrackLaunchError(
      'RUN_DIR',
      `${file} has version ${JSON.stringify(data.version)}; this track-launch reads version ${version}`,
      {
        hint: 'Use the track-launch release that wrote this run directory.',
      },
    );
  }
  return data;
}

/** Write via a temporary file and rename, so readers never see half a file. */
export function writeJsonAtomic(file: string, data: unknown, mode = 0o644): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n', { mode });
  fs.renameSync(tmp, file);
}
