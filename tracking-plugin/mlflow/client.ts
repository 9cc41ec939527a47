// A typed MLflow REST 2.0 client on axios (no fit JS client exists on npm). Public REST API only,
// so MLflow-compatible servers work too; where one lacks an endpoint the error says so.
import { storeArtifact, TrackLaunchError } from '../../core';
import { localArtifactDir, proxyPath, storeScheme } from './artifacts';
import type { KeyValue, LogBatchBody } from './batch';
import { readCert, trackingConfig, type TrackingConfig } from './config';
import { errorCodeOf, HttpTransport, statusOf, type StreamSource } from './http';
import type { Experiment, FileInfo, Run, RunStatus } from './types';

export type { Experiment, FileInfo, Run, RunInfo, RunStatus } from './types';
export type { TrackingConfig } from './config';

const API = '/api/2.0/mlflow';
/** MLflow 3's experiment kind tag and the value its UI shows as "Training runs". */
const EXPERIMENT_KIND = 'mlflow.experimentKind';
const TRAINING_KIND = 'custom_model_development';

export class MlflowClient {
  private readonly artifactUris = new Map<string, string>();

  constructor(readonly http: HttpTransport) {}

  /** A client for `uri` with credentials and TLS settings from MLflow's environment variables. */
  static async connect(
    uri: string,
    env: NodeJS.ProcessEnv = process.env,
    over: Partial<TrackingConfig> = {},
  ): Promise<MlflowClient> {
    const cfg = trackingConfig(uri, env, over);
    return new MlflowClient(new HttpTransport(cfg, await readCert(cfg), env));
  }

  get uri(): string {
    return this.http.cfg.uri;
  }

  async health(): Promise<void> {
    await this.http.request('GET', '/health', { retry: 'none' });
  }

  async getExperimentByName(name: string): Promise<Experiment | undefined> {
    try {
      const r = await this.http.request<{ experiment: Experiment }>('GET', `${API}/experiments/get-by-name`, {
        query: { experiment_name: name },
      });
      return r.experiment;
    } catch (err) {
      if (errorCodeOf(err) === 'RESOURCE_DOES_NOT_EXIST') return undefined;
      throw err;
    }
  }

  /** Marked as model training, so MLflow 3's UI opens it on the runs table, not the GenAI overview. */
  async createExperiment(name: string): Promise<string> {
    const tags = [{ key: EXPERIMENT_KIND, value: TRAINING_KIND }];
    const r = await this.http.request<{ experiment_id: string }>('POST', `${API}/experiments/create`, {
      body: { name, tags },
      retry: 'unsent',
    });
    return r.experiment_id;
  }

  /** The experiment's id, and whether this call created it; one another client created meanwhile is found. */
  async findOrCreateExperiment(name: string): Promise<{ id: string; created: boolean }> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const found = await this.getExperimentByName(name);
      if (found) {
        if (found.lifecycle_stage === 'deleted') {
          throw new TrackLaunchError(
            'TRACKING',
            `experiment ${JSON.stringify(name)} is deleted on ${this.uri}`,
            {
              hint: 'restore it in the MLflow UI (or `mlflow experiments restore`), or choose another experiment name',
            },
          );
        }
        await this.markAsTraining(found);
        return { id: found.experiment_id, created: false };
      }
      try {
        return { id: await this.createExperiment(name), created: true };
      } catch (err) {
        if (errorCodeOf(err) !== 'RESOURCE_ALREADY_EXISTS' && statusOf(err) !== undefined) throw err;
        // created by someone else, or our create may have gone through before the connection broke: look again
      }
    }
    throw new TrackLaunchError(
      'TRACKING',
      `could neither find nor create experiment ${JSON.stringify(name)} on ${this.uri}`,
    );
  }

  /** An experiment without a kind (MLflow 3's UI would guess GenAI) is marked as model training; a kind
   *  the user set is never overwritten. */
  private async markAsTraining(exp: Experiment): Promise<void> {
    if (exp.tags?.some((t) => t.key === EXPERIMENT_KIND)) return;
    await this.http.request('POST', `${API}/experiments/set-experiment-tag`, {
      body: { experiment_id: exp.experiment_id, key: EXPERIMENT_KIND, value: TRAINING_KIND },
    });
  }

  /** Not retried once sent (a retry could make a second run); callers search by tag first. */
  async createRun(args: {
    experimentId: string;
    runName: string;
    startTime: number;
    tags: KeyValue[];
  }): Promise<Run> {
    const r = await this.http.request<{ run: Run }>('POST', `${API}/runs/create`, {
      body: {
        experiment_id: args.experimentId,
        run_name: args.runName,
        start_time: args.startTime,
        tags: args.tags,
      },
      retry: 'unsent',
    });
    return r.run;
  }

  async getRun(runId: string): Promise<Run> {
    return (await this.http.request<{ run: Run }>('GET', `${API}/runs/get`, { query: { run_id: runId } }))
      .run;
  }

  async updateRun(
    runId: string,
    update: { status?: RunStatus; endTime?: number; runName?: string },
  ): Promise<void> {
    await this.http.request('POST', `${API}/runs/update`, {
      body: { run_id: runId, status: update.status, end_time: update.endTime, run_name: update.runName },
    });
  }

  /** Every run of the experiments that matches `filter`, oldest first, page after page. */
  async searchAllRuns(experimentIds: string[], filter: string): Promise<Run[]> {
    const all: Run[] = [];
    let pageToken: string | undefined;
    do {
      const r = await this.http.request<{ runs?: Run[]; next_page_token?: string }>(
        'POST',
        `${API}/runs/search`,
        {
          body: {
            experiment_ids: experimentIds,
            filter,
            max_results: 1000,
            order_by: ['attributes.start_time ASC'],
            page_token: pageToken,
          },
        },
      );
      all.push(...(r.runs ?? []));
      pageToken = r.next_page_token || undefined;
    } while (pageToken);
    return all;
  }

  /** One runs/log-batch request, already within limits (splitBatch); `json`: the body already serialised. */
  async logBatchRequest(body: LogBatchBody, json?: string): Promise<void> {
    await this.http.request(
      'POST',
      `${API}/runs/log-batch`,
      json === undefined ? { body } : { raw: json, contentType: 'application/json' },
    );
  }

  /** A file into the run's artifacts: PUT through the server's artifact proxy (--serve-artifacts), or
   *  written into the run's artifact directory when the server keeps artifacts in a directory this
   *  machine reaches, as MLflow's own client does. Any other store: an `unsupported` error. */
  async uploadArtifact(
    runId: string,
    artifactPath: string,
    content: Buffer | StreamSource,
    contentType = 'application/octet-stream',
  ): Promise<void> {
    const uri = await this.artifactUri(runId);
    const rel = proxyPath(uri, artifactPath);
    if (rel === undefined) return this.storeLocally(runId, uri, artifactPath, content);
    try {
      await this.http.request('PUT', `/api/2.0/mlflow-artifacts/artifacts/${rel}`, {
        ...(Buffer.isBuffer(content) ? { raw: content } : { stream: content }),
        contentType,
      });
    } catch (err) {
      if (statusOf(err) === 404 || statusOf(err) === 405 || statusOf(err) === 501)
        throw noProxy(this.uri, err);
      throw err;
    }
  }

  async listArtifacts(runId: string, path?: string): Promise<FileInfo[]> {
    const r = await this.http.request<{ files?: FileInfo[] }>('GET', `${API}/artifacts/list`, {
      query: { run_id: runId, path },
    });
    return r.files ?? [];
  }

  private async artifactUri(runId: string): Promise<string> {
    let uri = this.artifactUris.get(runId);
    if (!uri) {
      uri = (await this.getRun(runId)).info.artifact_uri ?? '';
      this.artifactUris.set(runId, uri);
    }
    return uri;
  }

  private async storeLocally(
    runId: string,
    uri: string,
    artifactPath: string,
    content: Buffer | StreamSource,
  ): Promise<void> {
    const dir = localArtifactDir(uri);
    const kept = `run ${runId} keeps its artifacts at ${uri || '(no artifact_uri)'}`;
    if (dir === undefined) {
      throw new TrackLaunchError(
        'TRACKING',
        `${kept}: track-launch writes ${storeScheme(uri)} stores only through the server's artifact proxy, which ${this.uri} does not use for this run`,
        {
          hint: 'start the server with --serve-artifacts --artifacts-destination <that store> (no --default-artifact-root) so that runs keep their artifacts behind its proxy',
          details: { unsupported: true, artifact_uri: uri, artifact_path: artifactPath },
        },
      );
    }
    const src = Buffer.isBuffer(content) ? content : (await content()).stream;
    try {
      await storeArtifact(dir, artifactPath, src);
    } catch (err) {
      if (!Buffer.isBuffer(src)) src.destroy(); // a stream not read to its end keeps its file open
      if (!(err instanceof TrackLaunchError) || err.details.unreachable !== true) throw err;
      throw new TrackLaunchError('TRACKING', `${kept}, but ${err.message}`, {
        ...(err.hint ? { hint: err.hint } : {}),
        details: { unsupported: true, artifact_uri: uri, artifact_path: artifactPath },
        cause: err,
      });
    }
  }
}

function noProxy(uri: string, cause: unknown): TrackLaunchError {
  return new TrackLaunchError(
    'TRACKING',
    `the server at ${uri} has no artifact proxy (PUT /api/2.0/mlflow-artifacts/artifacts answered ${statusOf(cause)}); artifacts were not uploaded`,
    {
      hint: 'start the server with --serve-artifacts; metrics, params and tags are tracked regardless',
      details: { unsupported: true, status: statusOf(cause) },
      cause,
    },
  );
}

export const isUnsupported = (err: unknown): boolean =>
  err instanceof TrackLaunchError && err.details.unsupported === true;
