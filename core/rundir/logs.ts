// logs/: which ranks wrote a log, and the rank logs, their line times and the node samples read
// incrementally (a byte range from where the last read stopped) or whole (reports).
import { findByte, openByteStream, readRange } from './byte-io';
import { runPaths } from './layout';
import { listDir, statFile } from './safe-fs';

const RANK_LOG = /^rank-(\d+)\.out$/;

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

/** Where the next newline of a log is at or after `from` (-1 and how far it looked when there is
 *  none yet), looking through a bounded window at a time. */
export const findNewline = (runDir: string, file: string, from: number) => findByte(runDir, file, from, 0x0a);

/** A log as a stream of bounded chunks, of any size (the rank logs' upload as artifacts). */
export const openLogStream = (runDir: string, file: string) => openByteStream(runDir, file);
