// logs/rank-<R>.json as written by the bootstrap (once when the rank starts, again when it ends).
// One reader: a rank that has not started, or whose file is being replaced, has no facts yet.
import { readJson } from './json';
import { JobStateName, RankFacts, RUN_DIR_VERSION, runPaths } from './layout';
import { listDir } from './safe-fs';
import { RANK_FACTS } from './schemas';

const RANK_FACTS_FILE = /^rank-(\d+)\.json$/;

/** logs/rank-R.json; undefined while it is missing or half-written (rename is atomic, NFS may lag). */
export const readRankFacts = (runDir: string, rank: number): RankFacts | undefined =>
  readJson<RankFacts>(runDir, runPaths(runDir).rankFacts(rank), {
    version: RUN_DIR_VERSION,
    partialIsMissing: true,
    schema: RANK_FACTS,
  });

/** The facts of every rank that has some, by rank. */
export function readAllRankFacts(runDir: string): RankFacts[] {
  const ranks = listDir(runDir, runPaths(runDir).logsDir)
    .map((n) => RANK_FACTS_FILE.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]));
  return ranks
    .map((r) => readRankFacts(runDir, r))
    .filter((f): f is RankFacts => f !== undefined)
    .sort((a, b) => a.rank - b.rank);
}

/** The rank that failed first: the earliest to end with a non-zero exit code. None for a cancelled
 *  job, whose ranks all exit non-zero without any of them having failed. */
export function firstFailedRank(facts: RankFacts[], state?: JobStateName): RankFacts | undefined {
  if (state === 'CANCELLED') return undefined;
  return facts
    .filter((f) => f.exit_code !== undefined && f.exit_code !== 0 && f.ended_at !== undefined)
    .sort((a, b) => (a.ended_at ?? 0) - (b.ended_at ?? 0))[0];
}
