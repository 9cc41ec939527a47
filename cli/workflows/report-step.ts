// The report step at the end of an ingest: render the report and attach it to the job's parent
// MLflow run, saying which step failed and counting what was not delivered.
import { TrackLaunchError } from '../../core';
import type { Summary } from '../../tracking-plugin';
import { reports, tracking } from '../lazy';
import { runUrlOf } from '../mlflow-link';
import { countNotDelivered } from '../tracking-output';

export interface ReportOptions {
  /** The --tracking-uri given, for the report's upload. */
  uri?: string;
  /** Machine-readable output: no progress, summary or report lines on stderr. */
  json: boolean;
  report: boolean;
}

const say = (line: string) => process.stderr.write(line);
const warn = (m: string) => say(`track-launch: warning: ${m}\n`);

const messageOf = (e: unknown): string =>
  `${(e as Error).message}${e instanceof TrackLaunchError && e.hint ? `; ${e.hint}` : ''}`;

/** Render the report and attach it to the job's parent MLflow run; a failure is a warning that says
 *  which step failed: not rendered, or rendered but not (or only partly) uploaded. A file not
 *  uploaded is counted in the summary as not delivered, as the run's own files are. */
export async function report(
  runDir: string,
  opts: ReportOptions,
  summary: Summary,
): Promise<string[] | undefined> {
  // Offline (no tracking URI for this ingest, also with --offline): no MLflow link, no upload.
  const uri = summary.trackingUri;
  let rendered;
  try {
    const mlflowUrl = uri ? runUrlOf(await tracking().findTrackedRuns(runDir, uri)) : undefined;
    rendered = await reports().renderReport(runDir, mlflowUrl ? { mlflowUrl } : {});
  } catch (e) {
    warn(`the report was not rendered: ${messageOf(e)}`);
    countNotDelivered(summary, 1, `report not rendered: ${(e as Error).message}`);
    return undefined;
  }
  const { files, notes } = rendered;
  const attached = uri
    ? await tracking().attachReportFiles(runDir, files, { uri })
    : { uploaded: [], notes: [], runId: undefined, failed: undefined };
  if (!opts.json) {
    const lines = [
      `reports${attached.runId ? ' (also attached to the parent MLflow run under reports/)' : ''}:`,
      ...files.map((f) => `  ${f}`),
      ...[...notes, ...attached.notes].map((n) => `  note: ${n}`),
    ];
    say(lines.join('\n') + '\n');
  }
  if (attached.failed) {
    const up = attached.uploaded;
    const left = files.filter((f) => !up.includes(f));
    const how = up.length
      ? `but only partly uploaded to the parent MLflow run (${up.join(', ')} uploaded; ${left.join(', ')} not)`
      : 'but not uploaded to the parent MLflow run';
    warn(`the report was rendered (${files.join(', ')}) ${how}: ${messageOf(attached.failed)}`);
    countNotDelivered(
      summary,
      left.length,
      `report files not uploaded: ${(attached.failed as Error).message}`,
    );
  }
  return files;
}
