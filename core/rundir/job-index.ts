// Maps job ids to run directories, so that `status 1234` works from anywhere on the login node.
// One JSON line per submitted job in $XDG_STATE_HOME/track-launch/jobs.jsonl.
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError } from '../errors';
import { userStateDir } from '../user-state';
import { taskDirOf } from './array';
import { parseJsonLines } from './json';
import { runPaths } from './layout';

export function jobIndexFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(userStateDir(env), 'jobs.jsonl');
}

export function recordJob(jobId: string, runDir: string, executor: string): void {
  const file = jobIndexFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.appendFileSync(
    file,
    JSON.stringify({ job_id: jobId, run_dir: runDir, executor, at: Date.now() / 1000 }) + '\n',
  );
}

/** A run directory: it holds job.json, or (made by hand, for ingest and report) only logs/. */
function isRunDir(dir: string): boolean {
  const p = runPaths(dir);
  return (
    fs.existsSync(p.jobJson) || fs.statSync(p.logsDir, { throwIfNoEntry: false })?.isDirectory() === true
  );
}

/** One line of jobs.jsonl: a job id, its run directory, the executor, the Unix time it was recorded. */
export interface JobIndexEntry {
  job_id: string;
  run_dir: string;
  executor: string;
  at: number;
}

const isEntry = (v: unknown): v is JobIndexEntry => {
  const e = v as Partial<JobIndexEntry> | null;
  return !!e && typeof e.job_id === 'string' && typeof e.run_dir === 'string';
};

/** Every entry of the index, oldest first, and how many lines were not entries (a torn write, an
 *  edit by hand): counted, not fatal, so one bad line never hides the other jobs. */
export function readJobIndex(env: NodeJS.ProcessEnv = process.env): {
  entries: JobIndexEntry[];
  malformed: number;
} {
  let text = '';
  try {
    text = fs.readFileSync(jobIndexFile(env), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const { values, malformed } = parseJsonLines(text);
  const entries = values.filter(isEntry);
  return {
    entries: entries.map((v) => ({ ...v, executor: String(v.executor ?? ''), at: Number(v.at) || 0 })),
    malformed: malformed + values.length - entries.length,
  };
}

/** The newest run directory the index records for a job id that still holds its job.json. */
const lookUpJob = (jobId: string): string | undefined =>
  readJobIndex()
    .entries.reverse()
    .find((e) => e.job_id === jobId && fs.existsSync(runPaths(e.run_dir).jobJson))?.run_dir;

/** "Job id or run directory", for every command that takes one: a path that is a run directory
 *  (resolved from `cwd`), else a job id looked up in the index (the newest entry wins; `<job>_<task>`
 *  is that task's directory of an array job), else NOT_FOUND saying which of the two it looked like.
 *  An array job's own directory is returned as it is (runDirsOf() gives its tasks). */
export function resolveRunDir(jobOrDir: string, cwd = process.cwd()): string {
  const asPath = path.resolve(cwd, jobOrDir);
  if (isRunDir(asPath)) return asPath;
  const found = lookUpJob(jobOrDir);
  if (found) return found;
  const task = /^(\d+)_(\d+)$/.exec(jobOrDir);
  const arrayDir = task ? lookUpJob(task[1]) : undefined;
  if (task && arrayDir) return taskDirOf(arrayDir, jobOrDir, Number(task[2]));
  if (/^(\d+(_\d+)?|local-\w+)$/.test(jobOrDir)) {
    throw new TrackLaunchError('NOT_FOUND', `no run directory is recorded for job ${jobOrDir}`, {
      hint: `Pass the run directory instead (the one given to --run-dir), or look in ${jobIndexFile()}.`,
    });
  }
  throw new TrackLaunchError(
    'NOT_FOUND',
    `${asPath} is not a run directory (it has no job.json or logs/) and not a job id`,
    {
      hint: 'Pass a job id printed by `track-launch submit`, or the --run-dir of the job.',
    },
  );
}
