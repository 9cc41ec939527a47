// The tracking plugin's public API: what the launcher, the CLI and the reports call.
import { listRemoteStates, readTrackingState, SERVER_STATE, trackingPaths } from '../core';
import { trackingUri } from './mlflow/config';
import { Ingester, type IngestOptions } from './ingest/ingester';
import type { Summary } from './ingest/progress';
import { loadServerState, STATE_VERSION, type ServerState } from './ingest/state';
import { startLiveIngest, type LiveOptions } from './ingest/live';

export { readRunMetrics } from './series';
export { latestPerStep, type LatestSeries, type Repeat } from './steps';
export type { RankSeries } from './types';
export { MlflowClient } from './mlflow/client';
export { trackingUri } from './mlflow/config';
export { isValidName } from './mlflow/names';
export { MAX_PARAM_VALUE } from './mlflow/batch';
export { startLiveIngest } from './ingest/live';
export type { LiveIngest, LiveOptions } from './ingest/live';
export { requestsInFlight, type IngestOptions } from './ingest/ingester';
export { PLACEMENTS, stopTracker, trackerStatus } from './ingest/tracker';
export type { Placement, StopResult, TrackerStatus } from './ingest/tracker';
export { LOCK_DEAD_AFTER_MS, LOCK_HEARTBEAT_MS } from './ingest/lock';
export { formatProgress, formatUndelivered } from './ingest/progress';
export { describeCounts } from './ingest/delivery';
export type { Progress, Summary } from './ingest/progress';
export { FORMATS, parserFor } from './parsers';
export { attachReportFiles } from './publish';
export { endJobRuns, jobTrackingUri, prepareJobRuns, readMlflowEnv } from './ingest/job-runs';
export type { JobRuns, MlflowEnv } from './ingest/job-runs';

/** Ingest what the run dir holds now (offline: spool only), and return. With `follow`, keep
 *  ingesting until job.json says the job ended. Safe to run any number of times. */
export async function ingestRunDir(
  runDir: string,
  opts: LiveOptions & { follow?: boolean } = {},
): Promise<Summary> {
  if (opts.follow) return startLiveIngest(runDir, opts).done;
  const ing = await Ingester.open(runDir, opts);
  try {
    const p = await ing.cycle(true); // not inside onProgress?.(...): an absent callback would skip the call
    opts.onProgress?.(p);
  } finally {
    await ing.close();
  }
  return ing.summary();
}

/** Upload an offline run dir (spooled or not yet ingested) to the tracking server. */
export const syncRunDir = (runDir: string, opts: IngestOptions = {}): Promise<Summary> =>
  ingestRunDir(runDir, { ...opts, offline: false });

export interface TrackedRuns {
  trackingUri: string;
  experimentId?: string;
  parentRunId?: string;
  rankRunIds: Record<string, string>;
}

/** The MLflow runs this run dir was ingested into: for the given URI (default MLFLOW_TRACKING_URI),
 *  else the most recently used server. Undefined when it was never sent anywhere. */
export async function findTrackedRuns(runDir: string, uri?: string): Promise<TrackedRuns | undefined> {
  const files = trackingPaths(runDir);
  const want = trackingUri(uri);
  let state: ServerState | undefined;
  if (want) {
    state = loadServerState(runDir, files.sendState(want), want);
    if (!state.parent_run_id) state = undefined;
    if (!state && uri) return undefined; // asked about this server only
  }
  if (!state) {
    for (const file of listRemoteStates(runDir)) {
      const s = loadServerState(runDir, file, '');
      if (s.parent_run_id && (!state || (s.updated_at ?? 0) > (state.updated_at ?? 0))) state = s;
    }
  }
  if (!state?.parent_run_id) return undefined;
  return {
    trackingUri: state.uri,
    ...(state.experiment_id ? { experimentId: state.experiment_id } : {}),
    parentRunId: state.parent_run_id,
    rankRunIds: { ...state.rank_run_ids },
  };
}

/** Whether the runs of this run dir on the server `uri` were ended (the job over, everything sent).
 *  Read only: the lock's holder may be writing the state meanwhile. */
export const runsFinished = (runDir: string, uri: string): boolean =>
  readTrackingState<ServerState>(runDir, trackingPaths(runDir).sendState(uri), STATE_VERSION, SERVER_STATE)
    ?.finished !== undefined;
