// After a job (submit --follow, ingest, sync): render the report and attach it to the job's
// parent MLflow run under reports/. Offline (no tracking URI) the files stay in the run dir.
import * as fs from 'fs';
import * as path from 'path';
import { redact, TrackLaunchError } from '../core';
import { trackingUri } from '../tracking-plugin';
import { reports, tracking } from './lazy';

export interface PublishedReport {
  files: string[];
  notes: string[];
  /** MLflow run the files were uploaded to, when online. */
  runId?: string;
}

const CONTENT_TYPES: Record<string, string> = { '.pdf': 'application/pdf', '.png': 'image/png' };

/** Render and attach the report, saying what happened; a failure is a warning (the job's outcome stands). */
export async function reportAfterJob(
  runDir: string,
  opts: { uri?: string; json?: boolean; metricsFormat?: string } = {},
): Promise<PublishedReport | undefined> {
  try {
    const r = await publishReport(runDir, opts);
    if (!opts.json) {
      const lines = [
        `reports${r.runId ? ' (also attached to the parent MLflow run under reports/)' : ''}:`,
        ...r.files.map((f) => `  ${f}`),
      ];
      for (const n of r.notes) lines.push(`  note: ${n}`);
      process.stderr.write(lines.join('\n') + '\n');
    }
    return r;
  } catch (e) {
    const hint = e instanceof TrackLaunchError && e.hint ? `; ${e.hint}` : '';
    process.stderr.write(
      `track-launch: warning: the report was not rendered or uploaded: ${(e as Error).message}${hint}\n`,
    );
    return undefined;
  }
}

export async function publishReport(
  runDir: string,
  opts: { uri?: string; metricsFormat?: string } = {},
): Promise<PublishedReport> {
  const { files, notes } = await reports().renderReport(
    runDir,
    opts.metricsFormat ? { metricsFormat: opts.metricsFormat } : {},
  );
  const uri = trackingUri(opts.uri);
  if (!uri) return { files, notes };
  const { findTrackedRuns, MlflowClient } = tracking();
  const runs = await findTrackedRuns(runDir, uri);
  if (!runs?.parentRunId)
    return {
      files,
      notes: [...notes, `no MLflow run of this job on ${redact(uri)} yet: reports not uploaded`],
    };
  const client = await MlflowClient.connect(uri);
  for (const f of files) {
    await client.uploadArtifact(
      runs.parentRunId,
      `reports/${path.basename(f)}`,
      fs.readFileSync(f),
      CONTENT_TYPES[path.extname(f)],
    );
  }
  return { files, notes, runId: runs.parentRunId };
}
