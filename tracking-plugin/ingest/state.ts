// What ingestion remembers in <run-dir>/tracking/ (paths: trackingPaths in core/rundir/layout.ts;
// formats: docs/tracking.md): the spool's cursors in state.json, the send's per server in mlflow-*.json.
import { createHash, randomUUID } from 'crypto';
import * as path from 'path';
import {
  listRemoteStates,
  readTrackingState,
  redact,
  removeFile,
  SERVER_STATE,
  serverKey,
  SPOOL_STATE,
  trackingPaths,
  writeTrackingState,
} from '../../core';
import type { JobRecord } from '../../core';

export const STATE_VERSION = 1;

export interface RankCursor {
  out: number; // bytes of rank-R.out consumed (always at a line end)
  lines: number; // lines consumed
  ts: number; // bytes of rank-R.out.ts consumed
  tsLines: number; // lines of .out.ts consumed (< lines when a line took the fallback time)
  spool: number; // committed size of spool/rank-R.jsonl
  points: number;
  skipped: number;
  counters: Record<string, number>; // next step for keys logged without one
  host?: string;
  sys?: SystemCursor;
  /** Times the log was found shorter than what was read (truncated); read again from its start. */
  truncated?: number;
  /** The time (ms) of the last line consumed: the time of a next line .out.ts has none for. */
  lastMs?: number;
  /** Lines longer than MAX_LINE (tracking-plugin/logs/lines.ts) that were cut. */
  cut?: number;
  /** A line longer than a read is waiting for its newline: bytes after `out` known to hold none. */
  scan?: number;
}

/** A rank's following of its node's logs/node-<host>.resources.jsonl (docs/cluster.md). */
export interface SystemCursor {
  /** Per node file, bytes (always at a line end) and lines consumed. Keyed by host because a
   *  requeued rank may land on another node; each file is still read once, from where it stopped. */
  files: Record<string, { bytes: number; lines: number }>;
  spool: number; // committed size of spool/rank-R.system.jsonl
  points: number;
}

export interface SpoolState {
  version: 1;
  job_key: string;
  format: string;
  ranks: Record<string, RankCursor>;
  /** `pending`: (key, step) pairs not aggregated at this commit (absent in older states: unknown);
   *  `repeated`: points spooled for steps already aggregated, since the end's last settle (aggregate.ts). */
  parent: { spool: number; points: number; pending?: number; repeated?: number };
  /** Per host: the node's samples for the parent run (spool/node-<host>.system.jsonl). */
  nodes?: Record<string, SystemCursor>;
}

export interface ServerState {
  version: 1;
  uri: string;
  experiment?: string;
  experiment_id?: string;
  parent_run_id?: string;
  rank_run_ids: Record<string, string>;
  /** Bytes of each spool (`parent`, `rank-R`) that MLflow has acknowledged. */
  sent: Record<string, number>;
  sent_points: Record<string, number>;
  /** Digest of the tags/params last logged per run, so they are sent again only when they change. */
  tagged: Record<string, string>;
  artifacts: Record<string, true>;
  finished?: string;
  updated_at?: number;
}

/** Stable identity of a job across ingests, machines and copies of its run dir. An array task's
 *  has its task id: made before sbatch (submit --mlflow-env), no job id tells the tasks apart. */
export function jobKey(job: JobRecord | undefined): string {
  if (!job) return `local-${randomUUID()}`; // a hand-made run dir: stable once stored in state.json
  const id = [
    job.executor,
    job.cluster ?? '',
    job.job_id ?? '',
    job.submitted_at,
    job.name,
    job.plan_digest,
    ...(job.array_task ? [`task ${job.array_task.task_id}`] : []),
  ].join('|');
  return createHash('sha256').update(id).digest('hex').slice(0, 24);
}

export const loadSpoolState = (runDir: string): SpoolState | undefined =>
  readTrackingState<SpoolState>(runDir, trackingPaths(runDir).spoolState, STATE_VERSION, SPOOL_STATE);

/** The send state in `file` (one of tracking/mlflow-*.json), or a fresh one for `uri`. State
 *  written before files were keyed by serverKey (by the raw URI: another alias, other credentials)
 *  is taken over: the furthest of them is written under the new name and the old files removed. */
export function loadServerState(runDir: string, file: string, uri: string): ServerState {
  const s = migrateServerState(
    runDir,
    file,
    uri,
    readTrackingState<ServerState>(runDir, file, STATE_VERSION, SERVER_STATE),
  );
  // The run dir is readable by whoever reads the logs: never keep a password from the URI's user info.
  if (s) return { ...s, uri: redact(s.uri) };
  return {
    version: 1,
    uri: redact(uri),
    rank_run_ids: {},
    sent: {},
    sent_points: {},
    tagged: {},
    artifacts: {},
  };
}

/** `current` (the state in `file`), or the state of an old file of the same server that
 *  acknowledged more points, moved to `file`. */
function migrateServerState(
  runDir: string,
  file: string,
  uri: string,
  current: ServerState | undefined,
): ServerState | undefined {
  if (uri === '') return current;
  const key = serverKey(uri);
  const olds: { file: string; state: ServerState }[] = [];
  for (const other of listRemoteStates(runDir)) {
    if (path.basename(other) === path.basename(file)) continue;
    const state = readTrackingState<ServerState>(runDir, other, STATE_VERSION, SERVER_STATE);
    if (!state || serverKey(state.uri) !== key) continue;
    // a file of the new scheme is named after its server's key; one that is not is an old one
    if (path.basename(other) !== path.basename(trackingPaths(runDir).sendState(state.uri)))
      olds.push({ file: other, state });
  }
  if (!olds.length) return current;
  let best = current;
  for (const o of olds) if (!best || sum(o.state.sent_points) > sum(best.sent_points)) best = o.state;
  const moved = { ...(best as ServerState), uri: redact(uri) };
  writeTrackingState(runDir, file, moved); // durable before the old ones go: a crash keeps one of them
  for (const o of olds) removeFile(runDir, o.file);
  return moved;
}

const sum = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);

export const newCursor = (): RankCursor => ({
  out: 0,
  lines: 0,
  ts: 0,
  tsLines: 0,
  spool: 0,
  points: 0,
  skipped: 0,
  counters: {},
});
