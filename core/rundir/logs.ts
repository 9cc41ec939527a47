// logs/: which ranks wrote a log, and the rank logs, their line times and the node samples read
// incrementally (a byte range from where the last read stopped) or whole (reports).
import { readRange, readWhole } from './byte-io';
import { runPaths } from './layout';
import { listDir, statFile } from './safe-fs';

const RANK_LOG = /^rank-(\d+)\.out$/;

/** A log read whole is held in memory: beyond this, read it by ranges instead. */
export const WHOLE_LOG_LIMIT = 1 << 30;

/** Ranks that have a logs/rank-R.out, ascending. */
export function listRanks(runDir: string): number[] {
  return listDir(runDir, runPaths(runDir).logsDir)
    .map((n) => RANK_LOG.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

/** Size and mtime of a file of the run directory (a log); undefined when it is not there yet. */
export const logStat = (runDir: string, file: string) => statFile(runDir, file);

/** Bytes [from, from + max) of a file of the run directory; empty when it is not there yet. */
export const readLogRange = (runDir: string, file: string, from: number, max: number): Promise<Buffer> =>
  readRange(runDir, file, from, max);

/** A whole log (at most WHOLE_LOG_LIMIT bytes); undefined when it is not there. */
export const readLog = (runDir: string, file: string): Promise<Buffer | undefined> =>
  readWhole(runDir, file, WHOLE_LOG_LIMIT);
