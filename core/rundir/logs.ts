// logs/: which ranks wrote a log; the logs themselves are read with byte-io.ts (readLogRange,
// findNewline, openLogStream), incrementally from where the last read stopped.
import { runPaths } from './layout';
import { listDir } from './safe-fs';

export { statFile as logStat } from './safe-fs';
export { readRange as readLogRange } from './byte-io';

const RANK_LOG = /^rank-(\d+)\.out$/;

/** Ranks that have a logs/rank-R.out, ascending. */
export function listRanks(runDir: string): number[] {
  return listDir(runDir, runPaths(runDir).logsDir)
    .map((n) => RANK_LOG.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}
