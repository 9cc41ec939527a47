// Report files: reports/ of a run directory by default, or the directory given with --out (then
// that directory is the root the trust rules apply below). Each file replaces its old self atomically.
import * as path from 'path';
import { TrackLaunchError } from '../errors';
import { ensureDir, readBounded, writeAtomic } from './safe-fs';

/** A rendered PDF of thousands of pages stays far below this. */
const REPORT_FILE_LIMIT = 1 << 30;

/** Make `outDir` (below `root`, which may be `outDir` itself) ready for report files. */
export const ensureReportDir = (root: string, outDir: string): void => ensureDir(root, outDir);

/** Write one report file `name` into `outDir`; returns its path. */
export function writeReportFile(root: string, outDir: string, name: string, data: Buffer): string {
  const file = path.join(outDir, name);
  writeAtomic(root, file, data);
  return file;
}

/** A report file written by writeReportFile, read back (for upload as an artifact). */
export function readReportFile(file: string): Buffer {
  const data = readBounded(path.dirname(file), file, REPORT_FILE_LIMIT);
  if (data === undefined) throw new TrackLaunchError('NOT_FOUND', `${file} does not exist`);
  return data;
}
