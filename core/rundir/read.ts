// Reading the run directory (docs/run-dir.md): job.json, per-rank facts, which ranks have logs.
import { promises as fs } from 'fs';
import { TrackLaunchError } from '../errors';
import { RUN_DIR_VERSION, runPaths, type JobRecord, type RankFacts } from './layout';

async function readJson(file: string): Promise<unknown | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TrackLaunchError('RUN_DIR', `cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new TrackLaunchError('RUN_DIR', `${file} is not valid JSON: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

function checkVersion(file: string, v: unknown): void {
  const version = (v as { version?: unknown }).version;
  if (version !== RUN_DIR_VERSION) {
    throw new TrackLaunchError(
      'RUN_DIR',
      `${file} has version ${JSON.stringify(version)}; this track-launch reads version ${RUN_DIR_VERSION}`,
      {
        hint: 'use the track-launch version that wrote this run directory',
      },
    );
  }
}

/** job.json, or undefined when it is not there (a hand-made run dir with only logs). */
export async function readJob(runDir: string): Promise<JobRecord | undefined> {
  const file = runPaths(runDir).jobJson;
  const v = await readJson(file);
  if (v === undefined) return undefined;
  checkVersion(file, v);
  return v as JobRecord;
}

/** logs/rank-R.json; undefined while it is missing or half-written (it may appear late). */
export async function readRankFacts(runDir: string, rank: number): Promise<RankFacts | undefined> {
  const file = runPaths(runDir).rankFacts(rank);
  let v: unknown;
  try {
    v = await readJson(file);
  } catch (err) {
    if (err instanceof TrackLaunchError && /not valid JSON/.test(err.message)) return undefined; // being written
    throw err;
  }
  if (v === undefined) return undefined;
  checkVersion(file, v);
  return v as RankFacts;
}

/** Ranks that have a logs/rank-R.out, ascending. */
export async function listRanks(runDir: string): Promise<number[]> {
  let names: string[];
  try {
    names = await fs.readdir(runPaths(runDir).logsDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new TrackLaunchError(
      'RUN_DIR',
      `cannot list ${runPaths(runDir).logsDir}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const ranks = names
    .map((n) => /^rank-(\d+)\.out$/.exec(n))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => Number(m[1]));
  return ranks.sort((a, b) => a - b);
}

export async function assertRunDir(runDir: string): Promise<void> {
  try {
    const st = await fs.stat(runDir);
    if (!st.isDirectory()) throw new TrackLaunchError('NOT_FOUND', `${runDir} is not a directory`);
  } catch (err) {
    if (err instanceof TrackLaunchError) throw err;
    throw new TrackLaunchError('NOT_FOUND', `run directory ${runDir} does not exist`, { cause: err });
  }
}

export const isFinal = (job: JobRecord | undefined): boolean => job?.state?.ended_at !== undefined;
