// job.json: read, write and update the job's record in its run directory.
import { JobRecord, RUN_DIR_VERSION, runPaths } from './layout';
import { readVersionedJson, writeJsonAtomic } from './json-file';

export const readJobRecord = (runDir: string): JobRecord =>
  readVersionedJson<JobRecord>(runPaths(runDir).jobJson, RUN_DIR_VERSION, 'job.json');

export const writeJobRecord = (runDir: string, rec: JobRecord): void =>
  writeJsonAtomic(runPaths(runDir).jobJson, rec);

export function updateJobRecord(runDir: string, patch: (r: JobRecord) => JobRecord): JobRecord {
  const next = patch(readJobRecord(runDir));
  writeJobRecord(runDir, next);
  return next;
}
