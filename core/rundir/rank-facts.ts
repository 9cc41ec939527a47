// logs/rank-<R>.json as written by the bootstrap (once when the rank starts, again when it ends).
// One reader: a rank that has not started, or whose file is being replaced, has no facts yet.
import { readJson } from './json';
import { JobStateName, RankFacts, RUN_DIR_VERSION, runPaths } from './layout';
import { listDir, statFile } from './safe-fs';
import { RANK_FACTS } from './schemas';

const RANK_FACTS_FILE = /^rank-(\d+)\.json$/;

/** Facts read before, by file, with the file's version (statFile) when they were read: a tracker
 *  asks for every rank's facts every cycle, and they change twice in a rank's life. */
const readBefore = new Map<string, { version: string; facts: RankFacts }>();
const REMEMBERED = 65536;

/** logs/rank-R.json (frozen); undefined while it is missing or half-written (rename is atomic, NFS
 *  may lag). Read and checked again only when the file changed since the last read. */
export function readRankFacts(runDir: string, rank: number): RankFacts | undefined {
  const file = runPaths(runDir).rankFacts(rank);
  const st = statFile(runDir, file);
  const before = readBefore.get(file);
  if (st && before?.version === st.version) return before.facts;
  readBefore.delete(file);
  if (!st) return undefined;
  const facts = readJson<RankFacts>(runDir, file, {
    version: RUN_DIR_VERSION,
    partialIsMissing: true,
    schema: RANK_FACTS,
  });
  if (!facts) return undefined;
  if (readBefore.size >= REMEMBERED) readBefore.clear();
  // a version taken before the read: a change in between makes the next call read again
  readBefore.set(file, { version: st.version, facts: Object.freeze(facts) });
  return facts;
}

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
