// Attach rendered report files to the job's parent MLflow run, under reports/. Offline (no
// tracking URI) there is nothing to attach to: the files stay where they were written.
import * as path from 'path';
import { readReportFile, redact } from '../core';
import { MlflowClient } from './mlflow/client';
import { trackingUri } from './mlflow/config';
// A cycle with index.ts at load time only: findTrackedRuns is looked up when publishing.
import { findTrackedRuns } from './index';

interface Attached {
  /** The parent run the files went to; undefined offline or when the job has no run yet. */
  runId?: string;
  /** The files uploaded, in order; those after them were not, because of `failed`. */
  uploaded: string[];
  failed?: Error;
  notes: string[];
}

const CONTENT_TYPES: Record<string, string> = { '.pdf': 'application/pdf', '.png': 'image/png' };

export async function attachReportFiles(
  runDir: string,
  files: string[],
  opts: { uri?: string } = {},
): Promise<Attached> {
  const uri = trackingUri(opts.uri);
  if (!uri) return { uploaded: [], notes: [] };
  const uploaded: string[] = [];
  try {
    const runs = await findTrackedRuns(runDir, uri);
    if (!runs?.parentRunId)
      return { uploaded, notes: [`no MLflow run of this job on ${redact(uri)} yet: reports not uploaded`] };
    const client = await MlflowClient.connect(uri);
    for (const f of files) {
      await client.uploadArtifact(
        runs.parentRunId,
        `reports/${path.basename(f)}`,
        readReportFile(f),
        CONTENT_TYPES[path.extname(f)],
      );
      uploaded.push(f);
    }
    return { runId: runs.parentRunId, uploaded, notes: [] };
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    return { uploaded, failed: err, notes: [] };
  }
}
