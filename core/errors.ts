// One error base for every part of track-launch. The CLI's single top-level catch maps `code`
// to an exit code and prints `message` plus `hint`. Messages never carry credentials: build
// them with redact() when they may contain URLs, headers or environment values.

export const EXIT_CODES = {
  INVALID_SPEC: 2, // bad option values or config
  USAGE: 2, // bad CLI usage
  NOT_FOUND: 3, // a job, run dir or file that is not there
  COMMAND_FAILED: 4, // a child process (sbatch, squeue, ...) failed
  JOB_FAILED: 5, // the job ran and did not complete
  TRACKING: 6, // the MLflow server refused or was unreachable
  RUN_DIR: 7, // the run directory is malformed or of an unknown version
  REPORT: 8, // a report could not be rendered
  NOT_DELIVERED: 9, // tracking ended, but points, params, tags or files were skipped
  INTERRUPTED: 130, // stopped by a signal
} as const;

export type ErrorCode = keyof typeof EXIT_CODES;

export class TrackLaunchError extends Error {
  readonly code: ErrorCode;
  /** What the user can do about it; printed on its own line. */
  readonly hint?: string;
  /** Structured facts (option, value, command, exit code, stderr tail) for --json output. */
  readonly details: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { hint?: string; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(redact(message), opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'TrackLaunchError';
    this.code = code;
    this.hint = opts.hint === undefined ? undefined : redact(opts.hint);
    this.details = redactDeep(opts.details ?? {}) as Record<string, unknown>;
  }

  get exitCode(): number {
    return EXIT_CODES[this.code];
  }
}

/** A spec/option value that is not allowed: names the option, the value and what is allowed. */
export function invalidOption(option: string, value: unknown, allowed: string): TrackLaunchError {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return new TrackLaunchError('INVALID_SPEC', `--${option}: ${shown} is not valid; ${allowed}`, {
    details: { option, value, allowed },
  });
}

const secretValues = new Set<string>();

/** Register a secret (token, password) so that redact() removes it wherever it appears. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 4) secretValues.add(value);
}

/** `--token=X`, `--api-key X`, `MLFLOW_TRACKING_PASSWORD=X`: a flag or setting whose name says it
 *  holds a secret (a space-separated value only after a flag, so that prose stays readable). */
const SECRET_WORD = '[A-Za-z0-9_-]*(?:token|password|passwd|secret|api[-_]?key)[A-Za-z0-9_-]*';
const SECRET_ARG = new RegExp(
  `((?:^|[\\s"'])(?:-{1,2}${SECRET_WORD}(?:=|\\s+(?=[^\\s-]))|${SECRET_WORD}=))[^\\s"'&]+`,
  'gi',
);

/** After `@`, an image digest (`name:tag@sha256:...`), not a host: never userinfo. */
const NOT_DIGEST = '(?!(?:sha\\d+|blake\\d*b?|md5):)';
/** `scheme://user:pass@host` -> `scheme://user:***@host`. */
const URL_PASSWORD = new RegExp(`(\\b[a-z][a-z0-9+.-]*://)([^/\\s:@]+):([^/\\s@]+)@${NOT_DIGEST}`, 'gi');
/** `scheme://TOKEN@host` -> `scheme://***@host`: a user part alone is as often a token as a name
 *  (GitHub, MLflow proxies). */
const URL_USER = new RegExp(`(\\b[a-z][a-z0-9+.-]*://)([^/\\s:@*]+)@${NOT_DIGEST}`, 'gi');
/** `HTTPS_PROXY=user:pass@proxy:8080`: the proxy variables take userinfo without a scheme. */
const PROXY_PASSWORD = /(\b[a-z_]*proxy=["']?)([^\s:@/"']+):([^\s@/"']+)@/gi;

/** Remove credentials, and nothing else: registered secrets, URL userinfo (`https://user:pass@host`
 *  -> `https://user:***@host`, `https://TOKEN@host` -> `https://***@host`), the password of a proxy
 *  variable, secret-named arguments (`--token=X`, `--password X`) and Authorization headers. Other
 *  text shaped like userinfo (`pytorch:24.01@sha256:...`, `B:USR1@60`, `user@host:path`, e-mail
 *  addresses) is left as it is. */
export function redact(text: string): string {
  let out = text;
  for (const s of secretValues) out = out.split(s).join('***');
  out = out.replace(URL_PASSWORD, '$1$2:***@');
  out = out.replace(URL_USER, '$1***@');
  out = out.replace(PROXY_PASSWORD, '$1$2:***@');
  out = out.replace(SECRET_ARG, '$1***');
  out = out.replace(/(authorization["']?\s*[:=]\s*["']?)(basic|bearer)\s+[^\s"',}]+/gi, '$1$2 ***');
  return out;
}

/** A command line with its secrets redacted, word by word (`--token X` also hides X). */
export function redactArgv(argv: readonly string[]): string[] {
  return argv.map((a, i) =>
    i > 0 && new RegExp(`^-{1,2}${SECRET_WORD}$`, 'i').test(argv[i - 1]) ? '***' : redact(a),
  );
}

function redactDeep(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map(redactDeep);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v)]));
  }
  return value;
}
