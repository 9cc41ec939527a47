// The one place that talks HTTP: keep-alive, timeouts, retries with backoff and jitter, and
// errors in words. Credentials only ever travel in the Authorization header and are redacted.
import type { AxiosInstance, AxiosStatic } from 'axios';
import * as http from 'http';
import * as https from 'https';
import { TrackLaunchError } from '../../core';
import { authHeader, type TrackingConfig } from './config';
import { describeFailure, describeTlsFailure } from './describe';
import { TunnelAgent } from './proxy-agent';
import { proxyAuthorization, proxyFor } from './proxy';
import { backoffMs, isNetworkError, isRetryableStatus, retryAfterMs } from './retry';

/** `all`: safe to repeat (reads, log-batch, set-tag, update). `unsent`: only when the request
 *  cannot have been processed (refused connection, 429), for creates that must not happen twice. */
export type RetryMode = 'all' | 'unsent' | 'none';

export interface RequestOptions {
  body?: unknown;
  /** Bytes sent as they are (application/octet-stream unless `contentType` says otherwise). */
  raw?: Buffer | string;
  /** A body streamed from a file, opened again for every attempt (a stream cannot be replayed). */
  stream?: StreamSource;
  contentType?: string;
  query?: Record<string, string | number | undefined>;
  retry?: RetryMode;
}

/** Opens a fresh stream of a file's bytes and says how many it will give (Content-Length). */
export type StreamSource = () => Promise<{
  size: number;
  stream: NodeJS.ReadableStream & { destroy(): void };
}>;

/** Responses larger than this are refused, so a misbehaving server cannot exhaust memory. */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

export class HttpTransport {
  private readonly ax: AxiosInstance;
  /** Called before each retry wait (for progress lines); never with credentials. */
  onRetry?: (what: string, attempt: number, waitMs: number, reason: string) => void;

  constructor(
    readonly cfg: TrackingConfig,
    ca?: Buffer,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    const auth = authHeader(cfg);
    const agentOptions = { keepAlive: true, maxSockets: 16 };
    const tlsOptions = { rejectUnauthorized: !cfg.insecureTls, ...(ca ? { ca } : {}) };
    const { proxy } = proxyFor(cfg.uri, env);
    const viaProxy = proxy && cfg.uri.toLowerCase().startsWith('http:');
    if (viaProxy && auth) {
      throw new TrackLaunchError(
        'TRACKING',
        `MLflow credentials would cross the proxy ${proxy.host} unencrypted: ${cfg.uri} is http://`,
        {
          hint: `use an https:// tracking URI (the proxy then only tunnels TLS), or add ${new URL(cfg.uri).hostname} to NO_PROXY`,
        },
      );
    }
    // Loaded here: commands without a tracking server (status, logs, --help) skip axios's start-up.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const axios = require('axios') as AxiosStatic;
    const httpAgent = new http.Agent(agentOptions);
    const httpsAgent = proxy
      ? new TunnelAgent(proxy, proxyAuthorization(proxy), { ...agentOptions, ...tlsOptions })
      : new https.Agent({ ...agentOptions, ...tlsOptions });
    this.ax = axios.create({
      baseURL: cfg.uri,
      timeout: cfg.timeoutMs,
      httpAgent,
      httpsAgent,
      headers: auth ? { Authorization: auth } : {},
      responseType: 'text',
      transformRequest: (d: unknown) => d, // bodies arrive serialised; axios's default parses each again
      transformResponse: (d) => d, // bodies may be plain text; parsed below
      validateStatus: () => true,
      maxBodyLength: Infinity, // uploads stream from files of any size
      // A redirect is said, not followed (describeFailure): following a 301/302 turns a POST into a
      // GET that succeeds with nothing logged. Without it axios also skips follow-redirects' wrapper.
      maxRedirects: 0,
      maxContentLength: MAX_RESPONSE_BYTES,
      // https:// servers go through TunnelAgent's CONNECT; http:// ones through the proxy as a forward proxy.
      proxy: viaProxy
        ? {
            protocol: 'http',
            host: proxy.hostname,
            port: Number(proxy.port || 80),
            ...(proxy.username
              ? {
                  auth: {
                    username: decodeURIComponent(proxy.username),
                    password: decodeURIComponent(proxy.password),
                  },
                }
              : {}),
          }
        : false,
    });
  }

  async request<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    opts: RequestOptions = {},
  ): Promise<T> {
    const mode = opts.retry ?? 'all';
    const what = `${method} ${path}`;
    for (let attempt = 0; ; attempt++) {
      let status: number;
      let body: string;
      let retryAfter: string | undefined;
      let location: string | undefined;
      const upload = opts.stream ? await opts.stream() : undefined;
      try {
        const res = await this.ax.request<string>({
          method,
          url: path,
          params: opts.query,
          data:
            upload?.stream ?? opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
          headers: {
            'Content-Type':
              opts.contentType ?? (opts.raw || upload ? 'application/octet-stream' : 'application/json'),
            ...(upload ? { 'Content-Length': String(upload.size) } : {}),
          },
        });
        status = res.status;
        body = typeof res.data === 'string' ? res.data : String(res.data ?? '');
        retryAfter = res.headers['retry-after'] as string | undefined;
        location = res.headers.location as string | undefined;
        upload?.stream.destroy(); // a server that answered before reading the whole body
      } catch (err) {
        upload?.stream.destroy(); // not (wholly) read: release the file
        const code = (err as { code?: string }).code;
        const tls = describeTlsFailure({
          method,
          path,
          uri: this.cfg.uri,
          ...(code ? { code } : {}),
          message: (err as Error).message,
          ...(this.cfg.certPath ? { certPath: this.cfg.certPath } : {}),
        });
        if (tls) {
          // not `network`: the same certificate comes back on every try, a setting must change
          throw new TrackLaunchError('TRACKING', tls.message, {
            ...(tls.hint ? { hint: tls.hint } : {}),
            details: { uri: this.cfg.uri, method, path, code, attempts: attempt + 1, tls: true },
            cause: err,
          });
        }
        const canRetry = mode === 'all' ? isNetworkError(code) : mode === 'unsent' && code === 'ECONNREFUSED';
        if (canRetry && attempt < this.cfg.maxRetries) {
          await this.wait(what, attempt, undefined, code ?? 'network error');
          continue;
        }
        const message = `cannot reach MLflow at ${this.cfg.uri} (${what}): ${code ?? ''} ${(err as Error).message}`;
        const check =
          code === 'EPROXYREFUSED'
            ? 'HTTPS_PROXY/HTTP_PROXY (and NO_PROXY for servers reached directly)'
            : 'MLFLOW_TRACKING_URI and that the server runs';
        throw new TrackLaunchError('TRACKING', message.replace(/\s+/g, ' '), {
          hint: `check ${check}; everything stays in the run directory, \`track-launch sync <run-dir>\` uploads it later`,
          details: { uri: this.cfg.uri, method, path, code, attempts: attempt + 1, network: true },
          cause: err,
        });
      }
      if (status >= 200 && status < 300) return parseBody<T>(body);
      const retryable =
        mode === 'all' ? isRetryableStatus(status, body) : mode === 'unsent' && status === 429;
      if (retryable && attempt < this.cfg.maxRetries) {
        await this.wait(what, attempt, retryAfterMs(retryAfter, Date.now()), `HTTP ${status}`);
        continue;
      }
      const d = describeFailure({ method, path, status, body, ...(location ? { location } : {}) });
      throw new TrackLaunchError('TRACKING', d.message, {
        ...(d.hint ? { hint: d.hint } : {}),
        details: {
          uri: this.cfg.uri,
          method,
          path,
          status,
          error_code: d.errorCode,
          attempts: attempt + 1,
          ...(d.unsupported ? { unsupported: true } : {}),
        },
      });
    }
  }

  private async wait(
    what: string,
    attempt: number,
    retryAfter: number | undefined,
    reason: string,
  ): Promise<void> {
    const ms = backoffMs(attempt, Math.random(), retryAfter);
    this.onRetry?.(what, attempt + 1, ms, reason);
    await new Promise((r) => setTimeout(r, ms));
  }
}

function parseBody<T>(body: string): T {
  if (body.trim() === '') return {} as T;
  try {
    return JSON.parse(body) as T;
  } catch {
    return body as unknown as T; // artifact downloads and some proxies answer with plain text
  }
}

/** The status of a TRACKING error, or undefined for network errors and others. */
export const statusOf = (err: unknown): number | undefined =>
  err instanceof TrackLaunchError ? (err.details.status as number | undefined) : undefined;
export const errorCodeOf = (err: unknown): string | undefined =>
  err instanceof TrackLaunchError ? (err.details.error_code as string | undefined) : undefined;
