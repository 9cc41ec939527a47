// When to retry a request, and how long to wait (pure).

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ECONNABORTED',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** MLflow answers 400 when its database connection pool or sqlite's write lock ran out: busy, not wrong. */
export const SERVER_BUSY = /QueuePool limit|database is locked/i;

/** MLflow's answer on its artifact proxy when it runs without --serve-artifacts: 503 with
 *  {"detail": "Artifact serving is disabled..."} (MLflow 3) or a text naming --no-serve-artifacts
 *  (MLflow 2). Unavailable for good, not for a while: waiting does not help. */
export const ARTIFACTS_DISABLED = /Artifact serving is (?:disabled|not configured)|--no-serve-artifacts/i;

export function isRetryableStatus(status: number, body = ''): boolean {
  if (status === 501) return false; // Not Implemented: the endpoint does not exist, waiting will not add it
  if (status === 503 && ARTIFACTS_DISABLED.test(body)) return false;
  return status === 408 || status === 429 || status >= 500 || (status === 400 && SERVER_BUSY.test(body));
}

export const isNetworkError = (code: string | undefined): boolean =>
  code !== undefined && NETWORK_CODES.has(code);

/** Retry-After as seconds or an HTTP date -> ms to wait (undefined when absent or unreadable). */
export function retryAfterMs(header: string | undefined, nowMs: number): number | undefined {
  if (!header) return undefined;
  const t = header.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const at = Date.parse(t);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** Exponential backoff from 500 ms with full jitter, capped at 20 s; a server's Retry-After wins
 *  (capped at 5 minutes). */
export function backoffMs(attempt: number, random: number, retryAfter?: number): number {
  if (retryAfter !== undefined) return Math.min(retryAfter, 300_000);
  const ceiling = Math.min(20_000, 500 * 2 ** attempt);
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}
