// doctor's MLflow checks, in the order a first job needs them, with the client ingestion uses (its proxies,
// TLS and credentials): the server answers, credentials work, experiments and artifacts can be created.
import * as os from 'os';
import { redact, TrackLaunchError } from '../../core';
import type { DoctorCheck } from '../../launcher';
import { fail, failFrom, ok, warn } from '../../launcher';
import { tracking } from '../lazy';

type Client = InstanceType<ReturnType<typeof tracking>['MlflowClient']>;

const API = '/api/2.0/mlflow';

/** Doctor asks once, quickly: no retries, a short timeout. */
const QUICK = { maxRetries: 0, timeoutMs: 15_000 };

function authKind(env: NodeJS.ProcessEnv): string {
  if (env.MLFLOW_TRACKING_TOKEN) return 'token (MLFLOW_TRACKING_TOKEN)';
  if (env.MLFLOW_TRACKING_USERNAME !== undefined) return `basic auth as ${env.MLFLOW_TRACKING_USERNAME}`;
  return 'no credentials set';
}

const isUnsupported = (err: unknown) => err instanceof TrackLaunchError && err.details.unsupported === true;

export async function mlflowChecks(env: NodeJS.ProcessEnv = process.env): Promise<DoctorCheck[]> {
  const t = tracking();
  const uri = t.trackingUri(undefined, env);
  if (!uri)
    return [
      warn(
        'mlflow',
        'MLFLOW_TRACKING_URI is not set: runs are tracked offline in the run directory; set it to track live, or `track-launch sync <run-dir>` later',
      ),
    ];
  const shown = redact(uri);
  let client: Client;
  try {
    client = await t.MlflowClient.connect(uri, env, QUICK);
  } catch (err) {
    return [failFrom('mlflow', err)];
  }
  try {
    await client.health();
  } catch (err) {
    return [failFrom('mlflow-health', err, `${shown} does not answer /health`)];
  }
  const checks: DoctorCheck[] = [ok('mlflow-health', `${shown} answers /health`)];
  try {
    await client.getExperimentByName('Default'); // any API call: the server checks the credentials
    checks.push(ok('mlflow-auth', `an API request is accepted (${authKind(env)})`));
  } catch (err) {
    checks.push(failFrom('mlflow-auth', err, `${authKind(env)}`));
    return checks;
  }
  checks.push(...(await writeChecks(client)));
  return checks;
}

/** Create a throwaway experiment and run, upload and list a tiny artifact, then delete them. */
async function writeChecks(client: Client): Promise<DoctorCheck[]> {
  const name = `track-launch-doctor-${os.hostname()}-${process.pid}-${Date.now()}`;
  let experimentId: string;
  try {
    experimentId = await client.createExperiment(name);
  } catch (err) {
    return [failFrom('mlflow-experiment', err, 'cannot create an experiment')];
  }
  const checks: DoctorCheck[] = [
    ok('mlflow-experiment', 'may create experiments (a throwaway one was created and deleted)'),
  ];
  let runId: string | undefined;
  try {
    runId = (await client.createRun({ experimentId, runName: 'doctor', startTime: Date.now(), tags: [] }))
      .info.run_id;
    await client.uploadArtifact(
      runId,
      'track-launch-doctor/probe.txt',
      Buffer.from('track-launch doctor\n'),
      'text/plain',
    );
    const listed = await client.listArtifacts(runId, 'track-launch-doctor');
    checks.push(
      listed.some((f) => f.path.endsWith('probe.txt'))
        ? ok('mlflow-artifacts', "the runs' artifact store takes files (a tiny one was stored and listed)")
        : fail(
            'mlflow-artifacts',
            'an artifact stored is not listed by the server: check its --artifacts-destination, or that this machine and the server share its artifact directory at the same path',
            'TRACKING',
          ),
    );
  } catch (err) {
    if (isUnsupported(err))
      checks.push(
        warn(
          'mlflow-artifacts',
          `${(err as TrackLaunchError).message}; reports and logs will not be attached to runs (each ingest counts them as not delivered and exits 9); ${(err as TrackLaunchError).hint ?? ''}`.trim(),
        ),
      );
    else checks.push(failFrom('mlflow-artifacts', err));
  }
  // The throwaway run and experiment are deleted (MLflow keeps deleted ones until `mlflow gc`).
  try {
    if (runId) await client.http.request('POST', `${API}/runs/delete`, { body: { run_id: runId } });
    await client.http.request('POST', `${API}/experiments/delete`, { body: { experiment_id: experimentId } });
  } catch (err) {
    if (!(err instanceof TrackLaunchError)) throw err;
    checks.push(
      warn(
        'mlflow-cleanup',
        `could not delete the throwaway experiment ${name} (${err.message}); delete it in the MLflow UI`,
      ),
    );
  }
  return checks;
}
