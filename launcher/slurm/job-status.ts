// Parsers for sacct, scontrol and squeue output (pure), all giving one JobStatus shape.
import { JobStateName } from '../../core';
import { baseState, parseExitCode } from '../../core';

export interface JobStatus {
  jobId: string;
  state: JobStateName;
  rawState: string;
  exitCode?: number;
  signal?: number;
  nodes?: string;
  reason?: string;
  elapsed?: string;
  start?: string;
  end?: string;
  restarts?: number;
  source: 'sacct' | 'scontrol' | 'squeue';
}

export const SACCT_FIELDS = 'JobID,State,ExitCode,NodeList,Start,End,Elapsed,Reason';

const clean = (v: string | undefined) =>
  v === undefined || v === '' || v === '(null)' || v === 'None' || v === 'Unknown' ? undefined : v;

/** `sacct --parsable2 --noheader --format=<SACCT_FIELDS>`: the job's own line (not its steps). */
export function parseSacct(jobId: string, text: string): JobStatus | undefined {
  for (const line of text.split('\n')) {
    const f = line.split('|');
    if (f.length < 7 || f[0] !== jobId) continue;
    const ec = parseExitCode(f[2]);
    return {
      jobId,
      state: baseState(f[1]),
      rawState: f[1],
      exitCode: ec?.code,
      signal: ec?.signal,
      nodes: clean(f[3]),
      start: clean(f[4]),
      end: clean(f[5]),
      elapsed: clean(f[6]),
      reason: clean(f[7]),
      source: 'sacct',
    };
  }
  return undefined;
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
    rawState: kv.JobState ?? '',
    exitCode: ec?.code,
    signal: ec?.signal,
    nodes: clean(kv.NodeList),
    reason: clean(kv.Reason),
    elapsed: clean(kv.RunTime),
    start: clean(kv.StartTime),
    end: clean(kv.EndTime),
    restarts: kv.Restarts === undefined ? undefined : Number(kv.Restarts),
    source: 'scontrol',
  };
}

export const SQUEUE_FORMAT = '%i|%T|%M|%N|%r';

/** `squeue -h -j <id> -o '%i|%T|%M|%N|%r'` */
export function parseSqueue(jobId: string, text: string): JobStatus | undefined {
  for (const line of text.split('\n')) {
    const f = line.split('|');
    if (f.length < 5 || f[0] !== jobId) continue;
    return {
      jobId,
      state: baseState(f[1]),
      rawState: f[1],
      elapsed: clean(f[2]),
      nodes: clean(f[3]),
      reason: clean(f[4]),
      source: 'squeue',
    };
  }
  return undefined;
}

/** `sbatch --parsable` prints "<jobid>" or "<jobid>;<cluster>". */
export function parseSbatchParsable(text: string): { jobId: string; cluster?: string } | undefined {
  const m = /^(\d+(?:_\d+)?)(?:;(\S+))?\s*$/m.exec(text.trim());
  return m ? { jobId: m[1], cluster: m[2] } : undefined;
}
