// The shared-filesystem probe (pure parts): the one-line batch job that writes a file from a
// compute node, and what the login node concludes from what it saw.
import type { JobStateName } from '../../core';
import { jobState } from '../../core';
import { quote } from '../shell/quote';
import { type DoctorCheck, fail, ok, warn } from './check';

export const PROBE_CHECK = 'run-dir';

/** With a tracking URI: what --track job needs on a compute node, checked by the probe job too. */
export interface TrackerProbe {
  /** Node.js and track-launch's entry point, at the paths `submit --track job` records. */
  node: string;
  main: string;
  /** The tracking server's health URL, without credentials (the script is kept in Slurm's state). */
  healthUrl: string;
}

export interface ProbeJobOptions {
  partition?: string;
  account?: string;
  qos?: string;
  tracker?: TrackerProbe;
}

/** MLflow's /health under the tracking URI, user info, query and fragment dropped; undefined for a
 *  URI that is not http(s) (a local store needs no route). */
export function healthUrl(uri: string): string | undefined {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}/health`;
}

/** The probe's lines for --track job (sh): `node <version|missing>`, `main ok|missing`, and
 *  `route <curl|python3> <HTTP status, 000 when none came>` (any answer is a route; TLS unchecked). */
function trackerProbeScript(t: TrackerProbe): string {
  const node = quote(t.node);
  const url = quote(t.healthUrl);
  const py =
    'import ssl,sys,urllib.request as u,urllib.error as e\n' +
    'try: print(u.urlopen(sys.argv[1],timeout=10,context=ssl._create_unverified_context()).status)\n' +
    'except e.HTTPError as x: print(x.code)\n' +
    'except Exception: print("000")';
  return [
    `if [ -x ${node} ]; then echo "node $(${node} -e 'process.stdout.write(process.version)' 2>/dev/null || echo broken)"; else echo 'node missing'; fi`,
    `if [ -r ${quote(t.main)} ]; then echo 'main ok'; else echo 'main missing'; fi`,
    `if command -v curl >/dev/null 2>&1; then echo "route curl $(curl -sk -o /dev/null -m 10 -w '%{http_code}' ${url} || true)"`,
    `elif command -v python3 >/dev/null 2>&1; then echo "route python3 $(python3 -c ${quote(py)} ${url})"`,
    `else echo 'route none'; fi`,
  ].join('\n');
}

/** sbatch argv: write `<token> <host>` (and the --track job lines) to a temporary name, then rename
 *  (the reader never sees half). */
export function probeArgv(dir: string, token: string, o: ProbeJobOptions): string[] {
  const tmp = `${dir}/probe.tmp`;
  const file = `${dir}/probe`;
  const lines = [
    `printf '%s %s\\n' ${quote(token)} "$(hostname)"`,
    ...(o.tracker ? [trackerProbeScript(o.tracker)] : []),
  ];
  const script = `{\n${lines.join('\n')}\n} > ${quote(tmp)} && mv -f ${quote(tmp)} ${quote(file)}`;
  return [
    'sbatch',
    '--parsable',
    '--job-name=track-launch-doctor',
    '--nodes=1',
    '--ntasks=1',
    '--time=2',
    '--output=/dev/null', // a node that cannot see the directory could not write a log there either
    '--chdir=/',
    ...(o.partition ? [`--partition=${o.partition}`] : []),
    ...(o.account ? [`--account=${o.account}`] : []),
    ...(o.qos ? [`--qos=${o.qos}`] : []),
    `--wrap=${script}`,
  ];
}

/** What the login node saw by the time it stopped looking. */
export interface ProbeSeen {
  parent: string;
  jobId: string;
  /** The file's content, when it was read back. */
  content?: string;
  token: string;
  state?: JobStateName;
  reason?: string;
  exitCode?: number;
  nodes?: string;
  waitedS: number;
}

const SHARED_HINT =
  'put --run-dir on a filesystem every compute node mounts at the same path (home, project or scratch; not /tmp)';

export function probeVerdict(s: ProbeSeen): DoctorCheck {
  const on = s.nodes ? ` on ${s.nodes}` : '';
  if (s.content !== undefined) {
    const [token, host] = s.content.trim().split(/\s+/);
    if (token !== s.token)
      return fail(
        PROBE_CHECK,
        `read back ${JSON.stringify(s.content.slice(0, 80))} instead of what probe job ${s.jobId} wrote: another program writes there`,
        'RUN_DIR',
      );
    return ok(
      PROBE_CHECK,
      `probe job ${s.jobId} on ${host ?? '?'} wrote into ${s.parent}; read back here after ${s.waitedS.toFixed(1)} s`,
    );
  }
  if (s.state === undefined || s.state === 'PENDING' || s.state === 'CONFIGURING')
    return warn(
      PROBE_CHECK,
      `not checked: probe job ${s.jobId} was still pending after ${Math.round(s.waitedS)} s${s.reason ? ` (${s.reason})` : ''}; rerun with a longer --timeout, another --partition, or --no-job`,
    );
  if (s.state === 'COMPLETED')
    return fail(
      PROBE_CHECK,
      `probe job ${s.jobId}${on} wrote a file into ${s.parent}, but this login node does not see it after ${Math.round(s.waitedS)} s: the directory is not shared; ${SHARED_HINT}`,
      'RUN_DIR',
    );
  if (jobState(s.state).final)
    return fail(
      PROBE_CHECK,
      `probe job ${s.jobId}${on} could not write into ${s.parent} (${s.state}${s.exitCode !== undefined ? `, exit ${s.exitCode}` : ''}): the compute nodes do not see it; ${SHARED_HINT}`,
      'RUN_DIR',
    );
  return fail(
    PROBE_CHECK,
    `probe job ${s.jobId}${on} was ${s.state} for ${Math.round(s.waitedS)} s without writing into ${s.parent}; is the filesystem hanging on the compute node? ${SHARED_HINT}`,
    'RUN_DIR',
  );
}

export const TRACK_JOB_NODE = 'track-job-node';
export const TRACK_JOB_ROUTE = 'track-job-route';
const OR_LOGIN = 'or track from the login node: --track login (the default)';

/** What the probe's --track job lines say (content: read back, its token checked). Warnings, not
 *  failures: only --track job needs them. */
export function trackerVerdicts(content: string, t: TrackerProbe): DoctorCheck[] {
  const lines = content.split('\n');
  const host = lines[0].trim().split(/\s+/)[1] ?? 'the compute node';
  const field = (name: string) =>
    lines
      .find((l) => l.startsWith(`${name} `))
      ?.slice(name.length + 1)
      .trim();
  const version = field('node') ?? 'missing';
  const major = /^v(\d+)\./.exec(version)?.[1];
  const node =
    major === undefined || Number(major) < 20
      ? warn(
          TRACK_JOB_NODE,
          `${host} has no Node.js >= 20 at ${t.node} (${version === 'missing' ? 'nothing there' : `it says ${version}`}): --track job runs the tracker with it there; install Node.js >= 20 at that path on the compute nodes, ${OR_LOGIN}`,
        )
      : field('main') !== 'ok'
        ? warn(
            TRACK_JOB_NODE,
            `${host} does not see track-launch at ${t.main}: --track job runs it there; install track-launch on a filesystem the compute nodes mount, ${OR_LOGIN}`,
          )
        : ok(TRACK_JOB_NODE, `${host} runs Node.js ${version} at ${t.node} and sees ${t.main}`);
  const [tool, status] = (field('route') ?? 'none').split(/\s+/);
  const route =
    tool === 'none' || status === undefined
      ? warn(
          TRACK_JOB_ROUTE,
          `${host} has neither curl nor python3: its route to ${t.healthUrl} is not checked`,
        )
      : /^[1-5]\d\d$/.test(status)
        ? ok(TRACK_JOB_ROUTE, `${host} reaches ${t.healthUrl} (HTTP ${status}, ${tool})`)
        : warn(
            TRACK_JOB_ROUTE,
            `${host} cannot reach ${t.healthUrl} (${tool}: no answer): --track job sends to MLflow from the compute nodes; ask for a route to it (or set HTTPS_PROXY for the job), ${OR_LOGIN}`,
          );
  return [node, route];
}
