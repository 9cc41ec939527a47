// Tracking settings from MLflow's own environment variables (so existing MLflow setups just work).
import { promises as fs } from 'fs';
import { TrackLaunchError, registerSecret } from '../../core';
import { readCredentialsFile } from './credentials-file';

export interface TrackingConfig {
  /** http(s)://host:port[/prefix], without a trailing slash. */
  uri: string;
  username?: string;
  password?: string;
  token?: string;
  insecureTls: boolean;
  /** PEM file to trust for the server's certificate. */
  certPath?: string;
  /** Request timeout in ms. */
  timeoutMs: number;
  /** Retries of one request on network errors, 408, 429 and 5xx (not 501). */
  maxRetries: number;
}

/** MLflow's own MLFLOW_HTTP_REQUEST_* settings: a non-negative integer, else the default. */
const intEnv = (v: string | undefined, dflt: number) =>
  v !== undefined && /^\s*\d+\s*$/.test(v) ? Number(v) : dflt;
const truthy = (v: string | undefined) => !!v && ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase());

/** The tracking URI from a flag or MLFLOW_TRACKING_URI; undefined means offline. */
export function trackingUri(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const uri = (flag ?? env.MLFLOW_TRACKING_URI ?? '').trim();
  return uri === '' ? undefined : uri;
}

export function trackingConfig(
  uri: string,
  env: NodeJS.ProcessEnv = process.env,
  over: Partial<TrackingConfig> = {},
): TrackingConfig {
  if (!/^https?:\/\//i.test(uri)) {
    throw new TrackLaunchError('TRACKING', `tracking URI ${JSON.stringify(uri)} is not an http(s) URL`, {
      hint: 'track-launch talks to an MLflow tracking server: set MLFLOW_TRACKING_URI=http://host:5000 (file and databricks URIs are not supported)',
      details: { uri },
    });
  }
  const cfg: TrackingConfig = {
    uri: uri.replace(/\/+$/, ''),
    insecureTls: truthy(env.MLFLOW_TRACKING_INSECURE_TLS),
    timeoutMs: 1000 * intEnv(env.MLFLOW_HTTP_REQUEST_TIMEOUT, 120),
    maxRetries: intEnv(env.MLFLOW_HTTP_REQUEST_MAX_RETRIES, 7),
    ...over,
  };
  // like MLflow's client: each of the two from the environment, else from ~/.mlflow/credentials
  const file = env.MLFLOW_TRACKING_USERNAME && env.MLFLOW_TRACKING_PASSWORD ? {} : readCredentialsFile(env);
  const username = env.MLFLOW_TRACKING_USERNAME || file.username;
  const password = env.MLFLOW_TRACKING_PASSWORD || file.password;
  if (username !== undefined) cfg.username = username;
  if (password !== undefined) cfg.password = password;
  if (env.MLFLOW_TRACKING_TOKEN) cfg.token = env.MLFLOW_TRACKING_TOKEN;
  if (env.MLFLOW_TRACKING_SERVER_CERT_PATH) cfg.certPath = env.MLFLOW_TRACKING_SERVER_CERT_PATH;
  registerSecret(cfg.password);
  registerSecret(cfg.token);
  // a server may echo the header back in an error body: its base64 form is a secret too
  if (cfg.username !== undefined && cfg.password)
    registerSecret(Buffer.from(`${cfg.username}:${cfg.password}`).toString('base64'));
  return cfg;
}

export async function readCert(cfg: TrackingConfig): Promise<Buffer | undefined> {
  if (!cfg.certPath) return undefined;
  try {
    return await fs.readFile(cfg.certPath);
  } catch (err) {
    throw new TrackLaunchError(
      'TRACKING',
      `cannot read MLFLOW_TRACKING_SERVER_CERT_PATH ${cfg.certPath}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

/** Authorization header value: bearer token wins over basic credentials, like MLflow's client. */
export function authHeader(cfg: TrackingConfig): string | undefined {
  if (cfg.token) return `Bearer ${cfg.token}`;
  if (cfg.username !== undefined && cfg.password !== undefined) {
    return `Basic ${Buffer.from(`${cfg.username}:${cfg.password}`).toString('base64')}`;
  }
  return undefined;
}
