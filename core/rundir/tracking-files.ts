// tracking/: the files the tracking plugin keeps in a run directory (paths: trackingPaths in
// layout.ts; formats: docs/tracking.md). The spools themselves are appended, cut back and read
// with byte-io.ts; what they mean is the tracking plugin's business.
import * as path from 'path';
import { readJson, writeJson, writeJsonAsync } from './json';
import { REMOTE_STATE_FILE, trackingPaths } from './layout';
import type { Schema } from './schema';
import { ensureDir, listDir } from './safe-fs';

const DAMAGED =
  'it is written atomically, so something else changed it; move the tracking/ directory away to start ingestion over';

/** tracking/ and tracking/spool/, created when missing. */
export const ensureTrackingDirs = (runDir: string): void => ensureDir(runDir, trackingPaths(runDir).spoolDir);

/** A state file of tracking/ (state.json: SPOOL_STATE, mlflow-*.json: SERVER_STATE); undefined before
 *  the first ingest. */
export const readTrackingState = <T>(
  runDir: string,
  file: string,
  version: number,
  schema: Schema,
): T | undefined => readJson<T>(runDir, file, { version, schema, damagedHint: DAMAGED });

export const writeTrackingState = (runDir: string, file: string, value: unknown): void =>
  writeJson(runDir, file, value, 1);

/** writeTrackingState with the disk's waits off the event loop (one write at a time per file). */
export const writeTrackingStateAsync = (runDir: string, file: string, value: unknown): Promise<void> =>
  writeJsonAsync(runDir, file, value, 1);

/** The names in tracking/spool/. */
export const listSpools = (runDir: string): string[] => listDir(runDir, trackingPaths(runDir).spoolDir);

/** Every server's stage-2 state file in tracking/. */
export function listRemoteStates(runDir: string): string[] {
  const dir = trackingPaths(runDir).dir;
  return listDir(runDir, dir)
    .filter((n) => REMOTE_STATE_FILE.test(n))
    .map((n) => path.join(dir, n));
}

export * from './ingest-lock';
