// Turning a failed HTTP exchange into words (pure). Bodies may be JSON ({error_code, message}, or
// FastAPI's {detail}), plain text (MLflow 3's "Invalid Host header") or an HTML page from a proxy.
import { ARTIFACTS_DISABLED } from './retry';

interface HttpFailure {
  method: string;
  path: string;
  status: number;
  body: string;
  /** The Location header of a redirect. */
  location?: string;
}

interface Described {
  message: string;
  hint?: string;
  errorCode?: string;
  /** The server lacks this feature for good (no artifact proxy): callers skip it and carry on. */
  unsupported?: boolean;
}

function mlflowErrorCode(body: string): { errorCode?: string; message?: string } {
  try {
    const j = JSON.parse(body) as { error_code?: unknown; message?: unknown; detail?: unknown };
    const message = typeof j.message === 'string' ? j.message : j.detail; // FastAPI routes: {detail}
    return {
      ...(typeof j.error_code === 'string' ? { errorCode: j.error_code } : {}),
      ...(typeof message === 'string' ? { message } : {}),
    };
  } catch {
    return {}; // not JSON: the caller describes the text itself
  }
}

function textOf(body: string): string {
  const t = body
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return t.length > 300 ? `${t.slice(0, 300)}...` : t;
}

export function describeFailure(f: HttpFailure): Described {
  const what = `${f.method} ${f.path}`;
  if (f.status === 403 && /invalid host header/i.test(f.body)) {
    return {
      message: `the MLflow server refused ${what} with 403 "Invalid Host header": it does not accept the host name in the tracking URI`,
      hint: 'start the server with --allowed-hosts listing the host:port you connect to (MLflow 3 rejects other Host headers), or use the address it allows',
    };
  }
  if (f.status >= 300 && f.status < 400) {
    const to = f.location ? ` to ${f.location}` : '';
    return {
      message: `the server redirected ${what}${to} (HTTP ${f.status}); track-launch does not follow redirects`,
      hint: f.location
        ? 'use the address it redirects to in MLFLOW_TRACKING_URI (following would turn a POST into a GET)'
        : 'check MLFLOW_TRACKING_URI: it should be the address of the MLflow server itself',
    };
  }
  const { errorCode, message } = mlflowErrorCode(f.body);
  const detail = message ?? textOf(f.body);
  const base = `MLflow answered ${f.status}${errorCode ? ` ${errorCode}` : ''} to ${what}${detail ? `: ${detail}` : ''}`;
  if (f.status === 503 && ARTIFACTS_DISABLED.test(f.body)) {
    return {
      message: `the MLflow server does not serve artifacts: ${what} answered 503${detail ? `: ${detail}` : ''}`,
      hint: 'start the server with --serve-artifacts; metrics, params and tags are tracked regardless',
      unsupported: true,
    };
  }
  if (f.status === 404 && !errorCode) {
    return {
      message: `the server has no endpoint ${what} (404)${detail ? `: ${detail}` : ''}`,
      hint: 'check MLFLOW_TRACKING_URI; an MLflow-compatible server may not implement this endpoint',
    };
  }
  const hint = AUTH_HINTS[f.status];
  return { message: base, ...(hint ? { hint } : {}), ...(errorCode ? { errorCode } : {}) };
}

const AUTH_HINTS: Record<number, string> = {
  401: 'set MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD, or MLFLOW_TRACKING_TOKEN',
  403: 'the credentials in MLFLOW_TRACKING_* lack permission for this experiment or run',
};

interface NetworkFailure {
  method: string;
  path: string;
  uri: string;
  /** Node's error code (UNABLE_TO_VERIFY_LEAF_SIGNATURE, EPROTO, ...). */
  code?: string;
  message: string;
  /** MLFLOW_TRACKING_SERVER_CERT_PATH, when set. */
  certPath?: string;
}

/** The CA behind the server's certificate is not one we trust: the two settings that fix it. */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
]);

/** A TLS failure in words, or undefined for other network errors. TLS failures are not retried:
 *  the same certificate comes back every time, so only a setting or the server can fix them. */
export function describeTlsFailure(f: NetworkFailure): Described | undefined {
  const what = `${f.method} ${f.path}`;
  const why = `${what}: ${f.code ?? ''} ${f.message}`.replace(/\s+/g, ' ').trim();
  if (f.code !== undefined && UNTRUSTED.has(f.code)) {
    const trust = f.certPath
      ? `MLFLOW_TRACKING_SERVER_CERT_PATH=${f.certPath} does not hold the CA that signed it: point it at that CA's PEM file`
      : 'trust its CA with MLFLOW_TRACKING_SERVER_CERT_PATH=<CA bundle, PEM>';
    return {
      message: `the TLS certificate of ${f.uri} is not trusted (${why}); ${trust}, or skip verification with MLFLOW_TRACKING_INSECURE_TLS=true`,
      hint: 'the CA certificate comes from whoever runs the server (`openssl s_client -showcerts -connect host:port` shows the chain); MLFLOW_TRACKING_INSECURE_TLS=true only on a network you trust',
    };
  }
  if (f.code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return {
      message: `the TLS certificate of ${f.uri} is not issued for its host (${why})`,
      hint: 'use a host name the certificate names in MLFLOW_TRACKING_URI, or skip verification with MLFLOW_TRACKING_INSECURE_TLS=true',
    };
  }
  if (f.code === 'CERT_HAS_EXPIRED' || f.code === 'CERT_NOT_YET_VALID') {
    return {
      message: `the TLS certificate of ${f.uri} is not valid now (${why})`,
      hint: "the server's certificate needs renewing (or this machine's clock is wrong); MLFLOW_TRACKING_INSECURE_TLS=true skips verification",
    };
  }
  if (f.code === 'EPROTO' && /wrong version number|packet length too long/i.test(f.message)) {
    return {
      message: `the server at ${f.uri} does not speak TLS (${why})`,
      hint: 'use http:// in MLFLOW_TRACKING_URI for a server without TLS',
    };
  }
  return undefined;
}
