// After a job (submit --follow, ingest, sync): render the report (reports) and attach it to the
// job's parent MLflow run under reports/ (tracking plugin). Offline the files stay in the run dir.
import { TrackLaunchError } from '../../core';
import { reports, tracking } from '../lazy';
import { runUrlOf } from '../mlflow-link';

export interface PublishedReport {
  files: string[];
  notes: string[];
  /** MLflow run the files were uploaded to, when online. */
  runId?: string;
}

export async function publishReport(
  runDir: string,
  opts: { uri?: string; metricsFormat?: string } = {},
): Promise<PublishedReport> {
  // The summary page links the parent run when the run directory was sent to MLflow.
  const mlflowUrl = runUrlOf(await tracking().findTrackedRuns(runDir, opts.uri));
  const { files, notes } = await reports().renderReport(runDir, {
    ...(opts.metricsFormat ? { metricsFormat: opts.metricsFormat } : {}),
    ...(mlflowUrl ? { mlflowUrl } : {}),
  });
  const attached = await tracking().attachReportFiles(runDir, files, { uri: opts.uri });
  return {
    files,
    notes: [...notes, ...attached.notes],
    ...(attached.runId ? { runId: attached.runId } : {}),
  };
}

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
