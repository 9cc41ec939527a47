// The shared-filesystem probe (pure parts): the one-line batch job that writes a file from a
// compute node, and what the login node concludes from what it saw.
import type { JobStateName } from '../../core';
import { jobState } from '../../core';
import { quote } from '../shell/quote';
import { type DoctorCheck, fail, ok, warn } from './check';

export const PROBE_CHECK = 'run-dir';

export interface ProbeJobOptions {
  partition?: string;
  account?: string;
  qos?: string;
}

/** sbatch argv: write `<token> <host>` to a temporary name, then rename (the reader never sees half). */
export function probeArgv(dir: string, token: string, o: ProbeJobOptions): string[] {
  const tmp = `${dir}/probe.tmp`;
  const file = `${dir}/probe`;
  const script = `printf '%s %s\\n' ${quote(token)} "$(hostname)" > ${quote(tmp)} && mv -f ${quote(tmp)} ${quote(file)}`;
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
