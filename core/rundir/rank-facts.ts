// logs/rank-<R>.json as written by the bootstrap; tolerant of ranks that never started.
import * as fs from 'fs';
import * as path from 'path';
import { JobStateName, RankFacts, runPaths } from './layout';

export function readAllRankFacts(runDir: string): RankFacts[] {
  const dir = runPaths(runDir).logsDir;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return []; // no logs yet: no rank has started
  }
  const facts: RankFacts[] = [];
  for (const n of names) {
    if (!/^rank-\d+\.json$/.test(n)) continue;
    try {
      facts.push(JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')) as RankFacts);
    } catch {
      // Being rewritten right now (rename is atomic, but NFS may lag): read again next time.
    }
  }
  return facts.sort((a, b) => a.rank - b.rank);
}

/**
 * The rank that failed first: the earliest to end with a non-zero exit code. None for a
 * cancelled job, whose ranks all exit non-zero without any of them having failed.
 */
export function firstFailedRank(facts: RankFacts[], state?: JobStateName): RankFacts | undefined {
  if (state === 'CANCELLED') return undefined;
  return facts
    .filter((f) => f.exit_code !== undefined && f.exit_code !== 0 && f.ended_at !== undefined)
    .sort((a, b) => (a.ended_at ?? 0) - (b.ended_at ?? 0))[0];
}
