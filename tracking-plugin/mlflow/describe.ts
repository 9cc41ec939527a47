// Turning a failed HTTP exchange into words (pure). Bodies may be JSON ({error_code, message}),
// plain text (MLflow 3's "Invalid Host header") or an HTML page from a proxy.

export interface HttpFailure {
  method: string;
  path: string;
  status: number;
  body: string;
}

export interface Described {
  message: string;
  hint?: string;
  errorCode?: string;
}

export function mlflowErrorCode(body: string): { errorCode?: string; message?: string } {
  try {
    const j = JSON.parse(body) as { error_code?: unknown; message?: unknown };
    return {
      ...(typeof j.error_code === 'string' ? { errorCode: j.error_code } : {}),
      ...(typeof j.message === 'string' ? { message: j.message } : {}),
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
  const { errorCode, message } = mlflowErrorCode(f.body);
  const detail = message ?? textOf(f.body);
  const base = `MLflow answered ${f.status}${errorCode ? ` ${errorCode}` : ''} to ${what}${detail ? `: ${detail}` : ''}`;
  const withCode = (d: Described): Described => (errorCode ? { ...d, errorCode } : d);
  if (f.status === 401)
    return withCode({
      message: base,
      hint: 'set MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD, or MLFLOW_TRACKING_TOKEN',
    });
  if (f.status === 403)
    return withCode({
      message: base,
      hint: 'the credentials in MLFLOW_TRACKING_* lack permission for this experiment or run',
    });
  if (f.status === 404 && !errorCode) {
    return {
      message: `the server has no endpoint ${what} (404)${detail ? `: ${detail}` : ''}`,
      hint: 'check MLFLOW_TRACKING_URI; an MLflow-compatible server may not implement this endpoint',
    };
  }
  return withCode({ message: base });
}
