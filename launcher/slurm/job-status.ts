// Parsers for sacct, scontrol and squeue output (pure), all giving one JobStatus shape.
import { baseState, parseExitCode, type JobStateName } from '../../core';

export interface JobStatus {
  jobId: string;
  state: JobStateName;
  exitCode?: number;
  signal?: number;
  nodes?: string;
  reason?: string;
  restarts?: number;
  source: 'sacct' | 'scontrol' | 'squeue';
}

export const SACCT_FIELDS = 'JobID,State,ExitCode,NodeList,Start,End,Elapsed,Reason';

const clean = (v: string | undefined) =>
  v === undefined || v === '' || v === '(null)' || v === 'None' || v === 'Unknown' ? undefined : v;

/** The `|`-separated fields of the job's own line (not its steps), when it has at least `min` of them. */
const fieldsOf = (jobId: string, text: string, min: number) =>
  text
    .split('\n')
    .map((line) => line.split('|'))
    .find((f) => f.length >= min && f[0] === jobId);

/** `sacct --parsable2 --noheader --format=<SACCT_FIELDS>` */
export function parseSacct(jobId: string, text: string): JobStatus | undefined {
  const f = fieldsOf(jobId, text, 7);
  if (!f) return undefined;
  const ec = parseExitCode(f[2]);
  return {
    jobId,
    state: baseState(f[1]),
    exitCode: ec?.code,
    signal: ec?.signal,
    nodes: clean(f[3]),
    reason: clean(f[7]),
    source: 'sacct',
  };
}

/** `scontrol show job -o <id>`: one line of Key=Value pairs (values may contain spaces only in a few keys). */
export function parseScontrolKeyValues(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /(\S+?)=(.*?)(?=\s+\S+?=|$)/g;
  for (let m = re.exec(line.trim()); m; m = re.exec(line.trim())) out[m[1]] = m[2];
  return out;
}

export function parseScontrolJob(jobId: string, text: string): JobStatus | undefined {
  const line = text.split('\n').find((l) => l.includes('JobState='));
  if (!line) return undefined;
  const kv = parseScontrolKeyValues(line);
  const ec = parseExitCode(kv.ExitCode);
  return {
    jobId: kv.JobId ?? jobId,
    state: baseState(kv.JobState ?? ''),
    exitCode: ec?.code,
    signal: ec?.signal,
    nodes: clean(kv.NodeList),
    reason: clean(kv.Reason),
    restarts: kv.Restarts === undefined ? undefined : Number(kv.Restarts),
    source: 'scontrol',
  };
}

export const SQUEUE_FORMAT = '%i|%T|%M|%N|%r';

/** `squeue -h -j <id> -o '%i|%T|%M|%N|%r'` */
export function parseSqueue(jobId: string, text: string): JobStatus | undefined {
  const f = fieldsOf(jobId, text, 5);
  return f && { jobId, state: baseState(f[1]), nodes: clean(f[3]), reason: clean(f[4]), source: 'squeue' };
}

/** `sbatch --parsable` prints "<jobid>" or "<jobid>;<cluster>". */
export function parseSbatchParsable(text: string): { jobId: string; cluster?: string } | undefined {
  const m = /^(\d+(?:_\d+)?)(?:;(\S+))?\s*$/m.exec(text.trim());
  return m ? { jobId: m[1], cluster: m[2] } : undefined;
}

/** seff's inputs, as `sacct --parsable2 --noheader --format=<SACCT_USAGE_FIELDS>` prints them. */
export const SACCT_USAGE_FIELDS = 'JobID,TotalCPU,AllocCPUS,ElapsedRaw,MaxRSS,MaxRSSNode';

export interface SacctUsage {
  jobId: string;
  /** User + system CPU time of all the job's steps, seconds (the job line's TotalCPU). */
  totalCpuS: number;
  allocCpus: number;
  elapsedS: number;
  /** Largest MaxRSS over the steps (the job line has none), MiB; undefined if never sampled. */
  maxRssMiB?: number;
  maxRssNode?: string;
}

/** sacct's TotalCPU: [DD-][HH:]MM:SS[.mmm] (e.g. "00:02.504"), in seconds. */
export function parseSacctDuration(text: string): number | undefined {
  const m = /^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$/.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1] ?? 0) * 86400 + Number(m[2] ?? 0) * 3600 + Number(m[3]) * 60 + Number(m[4]);
}

/** sacct's MaxRSS: a number with a K/M/G/T suffix (e.g. "168348K"), bytes without one; MiB. */
export function parseSacctSize(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([KMGTP]?)$/i.exec(text.trim());
  return m ? Number(m[1]) * 1024 ** ('BKMGTP'.indexOf(m[2].toUpperCase() || 'B') - 2) : undefined;
}

/** The job line's CPU time, CPUs and elapsed time, with the step lines' largest MaxRSS. */
export function parseSacctUsage(jobId: string, text: string): SacctUsage | undefined {
  let usage: SacctUsage | undefined;
  let peak: { mib: number; node?: string } | undefined;
  for (const line of text.split('\n')) {
    const f = line.split('|');
    if (f.length < 6) continue;
    if (f[0] === jobId) {
      const cpu = parseSacctDuration(f[1]);
      if (cpu === undefined) continue;
      usage = { jobId, totalCpuS: cpu, allocCpus: Number(f[2]) || 0, elapsedS: Number(f[3]) || 0 };
    } else if (f[0].startsWith(`${jobId}.`)) {
      const mib = parseSacctSize(f[4]);
      if (mib !== undefined && (!peak || mib > peak.mib)) peak = { mib, node: clean(f[5]) };
    }
  }
  if (usage && peak) return { ...usage, maxRssMiB: peak.mib, maxRssNode: peak.node };
  return usage;
}
