// submit --mlflow-env: the job's runs made before any rank starts, by the code and in the send
// state every ingest uses (so ingestion finds exactly these runs), and the file each rank's
// bootstrap reads MLFLOW_TRACKING_URI, MLFLOW_EXPERIMENT_ID and its MLFLOW_RUN_ID from.
import {
  assertRunDir,
  ensureTrackingDirs,
  readBounded,
  readJobRecord,
  redact,
  runDirsOf,
  trackingPaths,
  TrackLaunchError,
  writeAtomic,
} from '../../core';
import { MlflowClient } from '../mlflow/client';
import { trackingUri } from '../mlflow/config';
import { limiter } from './limiter';
import { acquireLock } from './lock';
import { DEFAULT_IN_FLIGHT, SendStage } from './send-stage';
import { SpoolStage } from './spool-stage';
import { who } from './who';

/** What each rank gets (tracking/mlflow-env.tsv). */
export interface MlflowEnv {
  /** The tracking URI as the ranks use it: no credentials in it. */
  uri: string;
  experimentId: string;
  /** Rank -> its run's id. */
  rankRunIds: Record<string, string>;
}

/** One run directory's runs (an array job: one per task). */
export interface JobRuns extends MlflowEnv {
  runDir: string;
  parentRunId: string;
}

/** Ids as MLflow and compatible servers make them; anything else is refused rather than exported. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_FILE = 16 << 20;

const FALLBACK =
  'submit without --mlflow-env (the runs are then made when the job is first ingested, and the ' +
  "script's own MLflow calls are not joined to them), or offline (no tracking URI; `track-launch sync` later)";

/** The URI the ranks get: the tracking URI itself, which must hold no credentials (the job's
 *  environment is kept in Slurm's state and seen by the job's processes). Pure. */
export function jobTrackingUri(uri: string): string {
  let u: URL;
  try {
    u = new URL(uri.trim());
  } catch {
    throw new TrackLaunchError('INVALID_SPEC', `--mlflow-env: ${JSON.stringify(redact(uri))} is not a URL`);
  }
  if (!/^https?:$/.test(u.protocol))
    throw new TrackLaunchError('INVALID_SPEC', `--mlflow-env: ${redact(uri)} is not an http(s) URL`);
  if (u.username || u.password)
    throw new TrackLaunchError(
      'INVALID_SPEC',
      `--mlflow-env: the tracking URI ${redact(uri)} has credentials in it, which every rank's environment would carry`,
      {
        hint: 'Take them out of the URI: set MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD (or MLFLOW_TRACKING_TOKEN) instead, and give them to the ranks with --env NAME',
      },
    );
  return u.href.replace(/\/+$/, '');
}

/** tracking/mlflow-env.tsv's text: `uri`, `experiment`, then `rank R ID` per rank, tab-separated. Pure. */
export function formatMlflowEnv(env: MlflowEnv): string {
  const ids = [env.experimentId, ...Object.values(env.rankRunIds)];
  const bad = ids.find((id) => !ID.test(id));
  if (bad !== undefined || /\s/.test(env.uri))
    throw new TrackLaunchError(
      'TRACKING',
      `the server answered an id track-launch cannot export: ${JSON.stringify(bad ?? env.uri)}`,
    );
  const ranks = Object.keys(env.rankRunIds).sort((a, b) => Number(a) - Number(b));
  return [
    '# track-launch submit --mlflow-env: what each rank exports (rank-bootstrap.sh)',
    `uri\t${env.uri}`,
    `experiment\t${env.experimentId}`,
    ...ranks.map((r) => `rank\t${r}\t${env.rankRunIds[r]}`),
    '',
  ].join('\n');
}

/** The file's contents (formatMlflowEnv); malformed lines are a RUN_DIR error. Pure. */
export function parseMlflowEnv(text: string, file = 'mlflow-env.tsv'): MlflowEnv {
  const env: Partial<MlflowEnv> & { rankRunIds: Record<string, string> } = { rankRunIds: {} };
  for (const [i, line] of text.split('\n').entries()) {
    if (line === '' || line.startsWith('#')) continue;
    const f = line.split('\t');
    if (f[0] === 'uri' && f.length === 2 && /^https?:\/\/\S+$/.test(f[1])) env.uri = f[1];
    else if (f[0] === 'experiment' && f.length === 2 && ID.test(f[1])) env.experimentId = f[1];
    else if (f[0] === 'rank' && f.length === 3 && /^\d+$/.test(f[1]) && ID.test(f[2]))
      env.rankRunIds[f[1]] = f[2];
    else throw new TrackLaunchError('RUN_DIR', `${file}: line ${i + 1} is not one track-launch wrote`);
  }
  if (!env.uri || !env.experimentId)
    throw new TrackLaunchError('RUN_DIR', `${file}: no ${env.uri ? 'experiment' : 'uri'} line`);
  return env as MlflowEnv;
}

/** The run dir's tracking/mlflow-env.tsv, or undefined when the job was submitted without --mlflow-env. */
export function readMlflowEnv(runDir: string): MlflowEnv | undefined {
  const file = trackingPaths(runDir).mlflowEnv;
  const bytes = readBounded(runDir, file, MAX_FILE);
  return bytes && parseMlflowEnv(bytes.toString('utf8'), file);
}

/** Before the job is submitted: the experiment, the parent run and one run per rank on the server,
 *  for each run directory of the job (an array's: each task's), and tracking/mlflow-env.tsv. Ran
 *  again on the same run directory, it finds the same runs. A failure ends the runs it made
 *  (KILLED: no job will use them) and says how to submit anyway. */
export async function prepareJobRuns(
  runDir: string,
  opts: { uri?: string; experiment?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<JobRuns[]> {
  const env = opts.env ?? process.env;
  const uri = trackingUri(opts.uri, env);
  if (!uri)
    throw new TrackLaunchError('USAGE', '--mlflow-env needs a tracking server: none is set', {
      hint: `Set MLFLOW_TRACKING_URI (or --tracking-uri), or ${FALLBACK}`,
    });
  const forJob = jobTrackingUri(uri);
  const client = await MlflowClient.connect(uri, env);
  const out: JobRuns[] = [];
  const made: string[] = [];
  for (const dir of runDirsOf(runDir)) {
    try {
      out.push(await prepareOne(dir, client, forJob, opts.experiment, env, made));
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      // a refusal's own hint (auth, allowed hosts) helps; a network error's (sync later) does not here
      const own = err instanceof TrackLaunchError && err.details.network !== true ? err.hint : undefined;
      const first = own ? ` (${own})` : '';
      const left = await endRuns(client, made).then(
        () => '',
        (e: Error) => `; ${e.message}`,
      );
      throw new TrackLaunchError(
        err instanceof TrackLaunchError ? err.code : 'TRACKING',
        `--mlflow-env: the job's MLflow runs could not be made, so nothing was submitted: ${why}${first}${left}`,
        { hint: `Try again once ${redact(uri)} answers, or ${FALLBACK}`, cause: err },
      );
    }
  }
  return out;
}

/** The submit failed after prepareJobRuns (sbatch refused the job): its runs end KILLED. */
export async function endJobRuns(
  runs: readonly JobRuns[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  if (!runs.length) return;
  const client = await MlflowClient.connect(runs[0].uri, env);
  await endRuns(
    client,
    runs.flatMap((r) => [...Object.values(r.rankRunIds), r.parentRunId]),
  );
}

/** Each run KILLED, a few requests at a time; those that could not be ended are said. */
async function endRuns(client: MlflowClient, ids: readonly string[]): Promise<void> {
  const gate = limiter(DEFAULT_IN_FLIGHT);
  const endTime = Date.now();
  const ended = await Promise.allSettled(
    ids.map((id) => gate(() => client.updateRun(id, { status: 'KILLED', endTime }))),
  );
  const failed = ended.filter((e): e is PromiseRejectedResult => e.status === 'rejected');
  if (failed.length)
    throw new TrackLaunchError(
      'TRACKING',
      `${failed.length} of the ${ids.length} MLflow runs made for the job could not be ended and stay RUNNING (${failed[0].reason instanceof Error ? failed[0].reason.message : String(failed[0].reason)})`,
      { hint: 'Delete them in the MLflow UI: the job they were made for was not submitted' },
    );
}

/** One run directory's runs and file; the ids of the runs made go to `made`, also on failure. */
async function prepareOne(
  runDir: string,
  client: MlflowClient,
  forJob: string,
  experiment: string | undefined,
  env: NodeJS.ProcessEnv,
  made: string[],
): Promise<JobRuns> {
  assertRunDir(runDir);
  ensureTrackingDirs(runDir);
  const unlock = acquireLock(runDir);
  try {
    const job = readJobRecord(runDir);
    const spool = await SpoolStage.open(runDir, job, undefined); // state.json: the job key ingestion keeps
    const send = await SendStage.open(client, runDir, await who(job, runDir));
    const ranks = Array.from({ length: job.spec.world_size }, (_, r) => String(r));
    const s = send.state;
    try {
      await send.runs.ensureAll(job, spool, experiment, env, ranks);
    } finally {
      made.push(...Object.values(s.rank_run_ids), ...(s.parent_run_id ? [s.parent_run_id] : []));
    }
    const rankRunIds = Object.fromEntries(ranks.map((r) => [r, s.rank_run_ids[r]]));
    const mlflowEnv = { uri: forJob, experimentId: s.experiment_id!, rankRunIds };
    writeAtomic(runDir, trackingPaths(runDir).mlflowEnv, formatMlflowEnv(mlflowEnv));
    return { runDir, ...mlflowEnv, parentRunId: s.parent_run_id! };
  } finally {
    await unlock();
  }
}
