// job.json: read, write and update the job's record in its run directory.
import { readJson, writeJson } from './json';
import { JobRecord, RUN_DIR_VERSION, runPaths } from './layout';
import { JOB_RECORD } from './schemas';
import { createExclusive } from './safe-fs';

/** The job's record; NOT_FOUND when the directory has none. */
export const readJobRecord = (runDir: string): JobRecord =>
  readJson<JobRecord>(runDir, runPaths(runDir).jobJson, {
    required: 'job.json',
    version: RUN_DIR_VERSION,
    schema: JOB_RECORD,
  });

/** The job's record, or undefined for a run directory without one (a hand-made one with only logs). */
export const readJobRecordIfAny = (runDir: string): JobRecord | undefined =>
  readJson<JobRecord>(runDir, runPaths(runDir).jobJson, { version: RUN_DIR_VERSION, schema: JOB_RECORD });

export const writeJobRecord = (runDir: string, rec: JobRecord): void =>
  writeJson(runDir, runPaths(runDir).jobJson, rec);

export function updateJobRecord(runDir: string, patch: (r: JobRecord) => JobRecord): JobRecord {
  const next = patch(readJobRecord(runDir));
  writeJobRecord(runDir, next);
  return next;
}

/** Claim a run directory for a new job: create an empty job.json, exclusively. Of two submissions
 *  racing for one directory only one gets true. */
export const claimJobRecord = (runDir: string): boolean =>
  createExclusive(runDir, runPaths(runDir).jobJson, '');
