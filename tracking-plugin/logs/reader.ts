// Reading a growing log a bounded amount at a time: whole lines from a byte offset, at most CHUNK
// bytes per read. A line longer than a read (no newline in CHUNK bytes) is not read whole: the
// reader looks for its newline through a bounded window and returns it cut to MAX_LINE bytes; until
// the newline comes, how far it looked is returned (`scanned`) so the next read goes on from there.
import { findNewline, readLogRange } from '../../core';
import { LineBatch, MAX_LINE } from './lines';

/** Bytes read at a time (the lines of one read are parsed together). */
export const CHUNK = 32 << 20;

/** Whole lines of `file` from byte `from`. `final`: the writer is gone, so a last line without its
 *  newline is taken as it is. `scanned`: bytes after `from` already known to hold no newline. */
export async function readBatch(
  runDir: string,
  file: string,
  from: number,
  final = false,
  scanned = 0,
): Promise<LineBatch> {
  const buf = await readLogRange(runDir, file, from, CHUNK);
  const atEnd = buf.length < CHUNK;
  if (atEnd || buf.indexOf(0x0a) >= 0) {
    const batch = new LineBatch(buf, from, final && atEnd);
    batch.more = !atEnd;
    return batch;
  }
  // One line longer than a read: keep its head, look for its end without holding the rest.
  const found = await findNewline(runDir, file, Math.max(from + CHUNK, from + scanned));
  if (found.at >= 0) return LineBatch.longLine(buf.subarray(0, MAX_LINE + 1), found.at + 1, true);
  if (final) return LineBatch.longLine(buf.subarray(0, MAX_LINE + 1), found.scanned);
  const waiting = new LineBatch(Buffer.alloc(0), from);
  waiting.scanned = found.scanned - from;
  return waiting;
}
