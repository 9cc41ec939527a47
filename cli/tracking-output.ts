// What `submit --follow`, `ingest` and `sync` say about tracking: the summary, and the error
// when points did not reach MLflow.
import { runPaths, TrackLaunchError } from '../core';
import type { Summary } from '../tracking-plugin';
import { tracking } from './lazy';

export function printSummary(s: Summary): void {
  const lines: string[] = [tracking().formatProgress(s)];
  if (s.trackingUri && s.parentRunId) {
    lines.push(
      `MLflow: parent run ${s.trackingUri}/#/experiments/${s.experimentId ?? '0'}/runs/${s.parentRunId} with ${Object.keys(s.rankRunIds).length} rank runs${s.status ? `, ${s.status}` : ''}`,
    );
  } else if (!s.trackingUri) {
    lines.push(
      `offline: ${s.pointsSpooled} points kept in ${runPaths(s.runDir).trackingDir}; upload them with: track-launch sync ${s.runDir}`,
    );
  }
  for (const w of s.warnings) lines.push(`warning: ${w}`);
  process.stderr.write(lines.join('\n') + '\n');
}

/** A summary that did not reach MLflow becomes the command's error (the spool keeps everything). */
export function failIfIncomplete(s: Summary): void {
  if (!s.trackingUri || s.complete || (s.pending === 0 && !s.final && !s.lastError)) return;
  // A refusal (401, 403, a bad URI) is not fixed by waiting: lastError already says what to set.
  const when = s.stopped ? 'once that is fixed' : 'when the server answers';
  throw new TrackLaunchError(
    'TRACKING',
    `${s.pending} of ${s.pointsSpooled} points are not in MLflow yet${s.lastError ? `: ${s.lastError}` : ''}`,
    {
      hint: `they are kept in ${runPaths(s.runDir).trackingDir}; run \`track-launch sync ${s.runDir}\` again ${when}`,
      details: { pending: s.pending, tracking_uri: s.trackingUri },
    },
  );
}
