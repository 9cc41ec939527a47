// What `submit --follow`, `ingest` and `sync` say about tracking: the summary, and what did not reach MLflow.
import { runPaths, TrackLaunchError } from '../core';
import { shellQuote } from '../launcher';
import type { Summary } from '../tracking-plugin';
import type { Ingested } from './workflows/follow-and-track';
import { tracking } from './lazy';
import { runUrl } from './mlflow-link';
import { printJsonResult } from './output';

export function printSummary(s: Summary): void {
  const lines: string[] = [tracking().formatProgress(s)];
  if (s.trackingUri && s.parentRunId) {
    const url = runUrl({
      trackingUri: s.trackingUri,
      experimentId: s.experimentId,
      parentRunId: s.parentRunId,
    });
    lines.push(
      `MLflow: parent run ${url} with ${Object.keys(s.rankRunIds).length} rank runs${s.status ? `, ${s.status}` : ''}`,
    );
  } else if (!s.trackingUri) {
    lines.push(
      `offline: ${s.pointsSpooled} points kept in ${runPaths(s.runDir).trackingDir}; send them with: track-launch sync ${shellQuote(s.runDir)}`,
    );
  }
  const renamed = s.renamed ?? [];
  for (const r of renamed.slice(0, 10))
    lines.push(
      `note: ${JSON.stringify(r.from)} sent as ${JSON.stringify(r.to)} (MLflow refuses the name as it is)`,
    );
  if (renamed.length > 10) lines.push(`note: and ${renamed.length - 10} more names sent under a valid name`);
  for (const w of s.warnings) lines.push(`warning: ${w}`);
  if (s.undelivered) lines.push(`warning: ${tracking().formatUndelivered(s.undelivered)}`);
  process.stderr.write(lines.join('\n') + '\n');
}

/** `ingest`/`sync`'s result as JSON (an array's under `tasks`); a task not in MLflow in full fails it. */
export function printTracked(tracked: Ingested[], json: boolean): void {
  const one = (t: Ingested) => ({ ...t.summary, reports: t.reports ?? [] });
  const e = tasksError(tracked.map((t) => ({ runDir: t.runDir, error: trackingError(t.summary) })));
  if (json) printJsonResult(tracked.length === 1 ? one(tracked[0]) : { tasks: tracked.map(one) }, e);
  if (e) throw e;
}

/** The error of one run directory, or of an array's tasks: each task that failed, named by its run
 *  directory, in one message (exit 6 if any is a tracking error, else the first's). */
export function tasksError(
  tasks: { runDir: string; error: TrackLaunchError | undefined }[],
): TrackLaunchError | undefined {
  const failed = tasks.filter((t): t is { runDir: string; error: TrackLaunchError } => !!t.error);
  if (failed.length <= 1) return failed[0]?.error;
  const code = failed.some((t) => t.error.code === 'TRACKING') ? 'TRACKING' : failed[0].error.code;
  return new TrackLaunchError(
    code,
    `${failed.length} of ${tasks.length} tasks did not reach MLflow in full:\n  ` +
      failed.map((t) => `${t.runDir}: ${t.error.message}`).join('\n  '),
    {
      hint: failed[0].error.hint,
      details: { tasks: failed.map((t) => ({ run_dir: t.runDir, ...t.error.details })) },
    },
  );
}

/** Files that a step after the ingest could not deliver (the report's), added to its count. */
export function countNotDelivered(s: Summary, files: number, reason: string): void {
  const none = { points: 0, params: 0, tags: 0, files: 0 };
  const u = s.undelivered ?? { ...none, reasons: [] };
  s.undelivered = { ...u, files: u.files + files, reasons: [...u.reasons, { reason, ...none, files }] };
}

/** Entries skipped for good (names, refusals, --artifact files) as the command's error; the runs were ended regardless. */
export function notDelivered(s: Summary): TrackLaunchError | undefined {
  const u = s.undelivered;
  if (!u) return undefined;
  const report = u.reasons.some((r) => r.reason.startsWith('report '));
  return new TrackLaunchError('NOT_DELIVERED', tracking().formatUndelivered(u, 10), {
    hint:
      'rename what MLflow refuses in the training script (names: letters, digits, _ / . - space :), fix the --artifact paths, or give the server an artifact store track-launch can write (--serve-artifacts); the warnings above name each one' +
      (report
        ? `; report files not uploaded stay in ${runPaths(s.runDir).reportsDir}: \`track-launch sync ${shellQuote(s.runDir)}\` uploads them once the server takes them`
        : ''),
    details: { ...u, tracking_uri: s.trackingUri },
  });
}

/** A summary that did not reach MLflow in full as the command's error: pending points, runs not
 *  ended, or entries lost for good; undefined when everything was delivered (or it was offline). */
export function trackingError(s: Summary): TrackLaunchError | undefined {
  if (!s.trackingUri || s.complete || (s.pending === 0 && !s.final && !s.lastError)) return notDelivered(s);
  // A refusal (401, 403, a bad URI) is not fixed by waiting: lastError already says what to set.
  // No error (stopped by Ctrl-C or SIGTERM): nothing to wait for.
  const when = s.stopped ? ' once that is fixed' : s.lastError ? ' when the server answers' : '';
  const why = s.lastError ? `: ${s.lastError}` : '';
  return new TrackLaunchError(
    'TRACKING',
    s.pending > 0
      ? `${s.pending} of ${s.pointsSpooled} points are not in MLflow yet${why}`
      : `all ${s.pointsSpooled} points are in MLflow, but the job's runs were not brought up to date (ended, tagged)${why}`,
    {
      hint: `they are kept in ${runPaths(s.runDir).trackingDir}; run \`track-launch sync ${shellQuote(s.runDir)}\` again${when}`,
      details: { pending: s.pending, tracking_uri: s.trackingUri },
    },
  );
}
