// Byte-exact line splitting: only complete lines (ending in \n) are returned, so a line that is
// still being written waits for its newline. Offsets are bytes, so a reader can resume exactly.
//
// Fast path: the buffer is decoded a piece (about 1 MiB) at a time and a line's text is a slice
// of its piece, cut only when asked for (LineBatch.text); per line there is no decode call and no
// object. A newline byte is never part of a UTF-8 sequence, so decoding a piece and splitting the
// text at '\n' gives the same texts as decoding each line, invalid bytes included, and a '\r'
// before the '\n' is the byte 0x0d. In a piece that is all ASCII a character is a byte.
import { isAscii } from 'buffer';

export interface LogLine {
  text: string;
  /** Byte offset just past this line's newline, relative to the file start. */
  end: number;
}

/** Bytes decoded at a time (a longer line is a piece of its own). */
const PIECE = 1 << 20;

/** The longest line kept whole, in bytes (without its newline). A longer line (a progress bar
 *  without newlines, a binary dump) is cut: its text is its first MAX_LINE bytes, the rest is
 *  skipped and the line counted in `cut` (docs/tracking.md). */
export const MAX_LINE = 1 << 20;

/** The complete lines of a buffer: texts cut on demand, byte ends. */
export class LineBatch {
  /** Lines in the batch. */
  length = 0;
  /** Bytes of the buffer in the batch's lines (after the last newline, or all of it with `final`). */
  readonly consumed: number;
  /** Lines longer than MAX_LINE, cut (their indices, ascending). */
  private readonly cutLines: number[] = [];
  /** The reader stopped before the file's end: read on from end(length - 1). */
  more = false;
  /** A line longer than a read is waiting for its newline: bytes after the batch's base known to
   *  hold none (so the next read looks from there, not from the line's start again). */
  scanned = 0;
  private readonly pieces: string[] = [];
  private piece = new Int32Array(0); // each line's piece
  private start = new Int32Array(0); // character offsets in the piece; stop excludes \r\n
  private stop = new Int32Array(0);
  private ends = new Float64Array(0); // byte offset just past the newline, + base
  private bstart = new Int32Array(0); // the line's bytes in buf (-1: not there); stop excludes \r\n
  private bstop = new Int32Array(0);
  private readonly buf: Buffer;

  /** `final`: the writer is gone, so bytes after the last newline are a last line, as they are. */
  constructor(buf: Buffer, base: number, final = false) {
    this.buf = buf;
    const complete = buf.lastIndexOf(0x0a) + 1;
    this.grow(complete >> 6); // a guess (64 bytes a line); grown as needed
    for (let at = 0; at < complete;) {
      let end = complete;
      if (complete - at > PIECE) {
        end = buf.lastIndexOf(0x0a, at + PIECE - 1) + 1;
        if (end <= at) end = buf.indexOf(0x0a, at + PIECE) + 1;
        if (end - 1 - at > MAX_LINE) {
          this.addCut(buf.subarray(at, end - 1), base + end);
          at = end;
          continue;
        }
      }
      this.split(buf, at, end, base);
      at = end;
    }
    this.consumed = complete;
    if (final && complete < buf.length) {
      // not split: the tail is one line whatever it holds (no \n; a \r stays)
      this.addCut(buf.subarray(complete), base + buf.length);
      this.consumed = buf.length;
    }
  }

  /** A batch of one line that was too long to read whole: `head` holds its first bytes (at least
   *  MAX_LINE of them, or all of it), `end` is the byte offset just past it. */
  static longLine(head: Buffer, end: number): LineBatch {
    const batch = new LineBatch(Buffer.alloc(0), end);
    batch.addCut(head, end);
    return batch;
  }

  /** One line as it is, or cut to MAX_LINE bytes (counted). */
  private addCut(bytes: Buffer, end: number): void {
    if (bytes.length > MAX_LINE) this.cutLines.push(this.length);
    const text = bytes.toString('utf8', 0, Math.min(bytes.length, MAX_LINE));
    this.push(this.pieces.length, 0, text.length, end, -1, -1);
    this.pieces.push(text);
  }

  /** How many of the first `n` lines were cut at MAX_LINE. */
  cutBefore(n: number): number {
    let k = 0;
    while (k < this.cutLines.length && this.cutLines[k] < n) k++;
    return k;
  }

  /** The text of line i (without its \n or \r\n). */
  text(i: number): string {
    return this.pieces[this.piece[i]].slice(this.start[i], this.stop[i]);
  }

  /** The bytes the batch was cut from (not to be changed while the batch is in use). A line's bytes
   *  are buffer[byteStart(i), byteStop(i)) (without its \r\n or \n); a parser's parseBytes reads them
   *  there, with no string per line. byteStart is -1 for a line that is not in the buffer (one longer
   *  than MAX_LINE, or the last line of a final batch). */
  get buffer(): Buffer {
    return this.buf;
  }

  byteStart(i: number): number {
    return this.bstart[i];
  }

  byteStop(i: number): number {
    return this.bstop[i];
  }

  /** The decoded text line i is part of, and where in it the line starts (line i is
   *  textOf(i).slice(textStart(i), ...)). */
  textOf(i: number): string {
    return this.pieces[this.piece[i]];
  }

  textStart(i: number): number {
    return this.start[i];
  }

  /** Byte offset just past line i's newline, relative to the file start. */
  end(i: number): number {
    return this.ends[i];
  }

  toLogLines(): LogLine[] {
    const lines: LogLine[] = new Array<LogLine>(this.length);
    for (let i = 0; i < this.length; i++) lines[i] = { text: this.text(i), end: this.ends[i] };
    return lines;
  }

  private split(buf: Buffer, from: number, to: number, base: number): void {
    const p = this.pieces.length;
    const ascii = isAscii(buf.subarray(from, to));
    const text = buf.toString(ascii ? 'latin1' : 'utf8', from, to);
    this.pieces.push(text);
    let at = 0; // in text
    for (let b = from; b < to;) {
      const nl = buf.indexOf(0x0a, b); // the newline byte; in text, the same newline
      const tnl = ascii ? nl - from : text.indexOf('\n', at);
      const cr = tnl > at && text.charCodeAt(tnl - 1) === 0x0d ? 1 : 0;
      this.push(p, at, tnl - cr, base + nl + 1, b, nl - cr);
      at = tnl + 1;
      b = nl + 1;
    }
  }

  private push(piece: number, start: number, stop: number, end: number, bstart: number, bstop: number): void {
    if (this.length === this.ends.length) this.grow(this.length * 2);
    const i = this.length++;
    this.piece[i] = piece;
    this.start[i] = start;
    this.stop[i] = stop;
    this.ends[i] = end;
    this.bstart[i] = bstart;
    this.bstop[i] = bstop;
  }

  private grow(n: number): void {
    n = Math.max(n, 16);
    const piece = new Int32Array(n);
    const start = new Int32Array(n);
    const stop = new Int32Array(n);
    const ends = new Float64Array(n);
    const bstart = new Int32Array(n);
    const bstop = new Int32Array(n);
    bstart.set(this.bstart.subarray(0, this.length));
    bstop.set(this.bstop.subarray(0, this.length));
    this.bstart = bstart;
    this.bstop = bstop;
    piece.set(this.piece.subarray(0, this.length));
    start.set(this.start.subarray(0, this.length));
    stop.set(this.stop.subarray(0, this.length));
    ends.set(this.ends.subarray(0, this.length));
    this.piece = piece;
    this.start = start;
    this.stop = stop;
    this.ends = ends;
  }
}

export function completeLines(buf: Buffer, base: number): { lines: LogLine[]; consumed: number } {
  const batch = new LineBatch(buf, base);
  return { lines: batch.toLogLines(), consumed: batch.consumed };
}

/** `1764669000.123456` (Unix seconds, microseconds) -> ms since the epoch, exactly, without float error. */
export function tsToMs(line: string): number | undefined {
  // the usual form (digits, a point, digits) without a regex or substrings; anything else: TS below
  const n = line.length;
  let i = 0;
  let sec = 0;
  for (let c = line.charCodeAt(0); i < n && c >= 0x30 && c <= 0x39; c = line.charCodeAt(++i))
    sec = sec * 10 + (c - 0x30);
  if (i === 0 || i > 12) return tsToMsRegex(line);
  if (i === n) return sec * 1000;
  if (line.charCodeAt(i) !== 0x2e) return tsToMsRegex(line);
  const f = ++i;
  let ms = 0;
  for (let c = line.charCodeAt(i); i < n && c >= 0x30 && c <= 0x39; c = line.charCodeAt(++i))
    if (i - f < 3) ms = ms * 10 + (c - 0x30);
  if (i === f || i - f > 9 || i !== n) return tsToMsRegex(line);
  for (let k = i - f; k < 3; k++) ms *= 10; // .5 is 500 ms
  return sec * 1000 + ms;
}

const TS = /^\s*(\d{1,12})(?:\.(\d{1,9}))?\s*$/;

function tsToMsRegex(line: string): number | undefined {
  const m = TS.exec(line);
  if (!m) return undefined;
  const frac = ((m[2] ?? '') + '000').slice(0, 3);
  return Number(m[1]) * 1000 + Number(frac);
}
