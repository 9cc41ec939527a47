// Byte-exact line splitting: only complete lines (ending in \n) are returned, so a line still being
// written waits for its newline; offsets are bytes, so a reader resumes exactly. The buffer is split a
// piece (about 1 MiB) at a time and a line's text is cut from its piece's decoded text when asked for
// (a newline byte is never part of a UTF-8 sequence, so this decodes each line as it would alone). An
// all-ASCII piece is decoded only when a text is asked for; another is decoded at once.
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
  private readonly pieces: (string | undefined)[] = []; // decoded text (undefined: not yet)
  private readonly pieceFrom: number[] = []; // the piece's bytes in buf, for its decoding
  private readonly pieceTo: number[] = [];
  private readonly pieceAscii: boolean[] = []; // a character is a byte: offsets come from bstart/bstop
  private piece: Int32Array = new Int32Array(0); // each line's piece
  private ends: Int32Array = new Int32Array(0); // byte offset just past the newline, - base
  private bstart: Int32Array = new Int32Array(0); // the line's bytes in buf (-1: not there); stop excludes \r\n
  private bstop: Int32Array = new Int32Array(0);
  // character offsets in a piece that is not ASCII; stop excludes \r\n (made for the first such line)
  private start: Int32Array | undefined;
  private stop: Int32Array | undefined;
  private readonly base: number;
  /** The bytes the batch was cut from (not to be changed while the batch is in use). A line's bytes
   *  are buffer[byteStart(i), byteStop(i)) (without its \r\n or \n), where a parser's parseBytes
   *  reads them; byteStart is -1 for a line that is not there (one longer than MAX_LINE, or the last
   *  line of a final batch). */
  readonly buffer: Buffer;

  /** `final`: the writer is gone, so bytes after the last newline are a last line, as they are. */
  constructor(buf: Buffer, base: number, final = false) {
    this.buffer = buf;
    this.base = base;
    const complete = buf.lastIndexOf(0x0a) + 1;
    this.grow(complete >> 5); // a guess (32 bytes a line), grown as needed
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
  static longLine(head: Buffer, end: number, more = false): LineBatch {
    const batch = new LineBatch(Buffer.alloc(0), end);
    batch.addCut(head, end);
    batch.more = more;
    return batch;
  }

  /** One line as it is, or cut to MAX_LINE bytes (counted). */
  private addCut(bytes: Buffer, end: number): void {
    if (bytes.length > MAX_LINE) this.cutLines.push(this.length);
    const text = bytes.toString('utf8', 0, Math.min(bytes.length, MAX_LINE));
    this.pushWide(this.pieces.length, 0, text.length, end, -1, -1);
    this.addPiece(text, -1, -1);
  }

  private addPiece(text: string | undefined, from: number, to: number): void {
    this.pieces.push(text);
    this.pieceFrom.push(from);
    this.pieceTo.push(to);
    this.pieceAscii.push(text === undefined);
  }

  /** How many of the first `n` lines were cut at MAX_LINE. */
  cutBefore(n: number): number {
    let k = 0;
    while (k < this.cutLines.length && this.cutLines[k] < n) k++;
    return k;
  }

  /** The text of line i (without its \n or \r\n). */
  text(i: number): string {
    const p = this.piece[i];
    if (!this.pieceAscii[p]) return this.textOf(i).slice(this.start![i], this.stop![i]);
    return this.textOf(i).slice(this.bstart[i] - this.pieceFrom[p], this.bstop[i] - this.pieceFrom[p]);
  }

  byteStart(i: number): number {
    return this.bstart[i];
  }

  byteStop(i: number): number {
    return this.bstop[i];
  }

  /** The decoded text of the piece line i is part of (an ASCII piece decoded when first asked for). */
  private textOf(i: number): string {
    const p = this.piece[i];
    return (this.pieces[p] ??= this.buffer.toString('latin1', this.pieceFrom[p], this.pieceTo[p]));
  }

  /** Byte offset just past line i's newline, relative to the file start. */
  end(i: number): number {
    return this.base + this.ends[i];
  }

  toLogLines(): LogLine[] {
    const lines: LogLine[] = new Array<LogLine>(this.length);
    for (let i = 0; i < this.length; i++) lines[i] = { text: this.text(i), end: this.end(i) };
    return lines;
  }

  private split(buf: Buffer, from: number, to: number, base: number): void {
    const p = this.pieces.length;
    if (isAscii(buf.subarray(from, to))) {
      this.addPiece(undefined, from, to);
      for (let b = from; b < to;) {
        const nl = buf.indexOf(0x0a, b);
        if (this.length === this.piece.length) this.grow(this.length * 2);
        const i = this.length++;
        this.piece[i] = p;
        this.ends[i] = nl + 1;
        this.bstart[i] = b;
        this.bstop[i] = nl > b && buf[nl - 1] === 0x0d ? nl - 1 : nl;
        b = nl + 1;
      }
      return;
    }
    const text = buf.toString('utf8', from, to);
    this.addPiece(text, from, to);
    let at = 0; // in text
    for (let b = from; b < to;) {
      const nl = buf.indexOf(0x0a, b); // the newline byte; in text, the same newline
      const tnl = text.indexOf('\n', at);
      const cr = tnl > at && text.charCodeAt(tnl - 1) === 0x0d ? 1 : 0;
      this.pushWide(p, at, tnl - cr, base + nl + 1, b, nl - cr);
      at = tnl + 1;
      b = nl + 1;
    }
  }

  /** A line with its character offsets (in a piece that is not ASCII, or a piece of its own). */
  private pushWide(
    piece: number,
    start: number,
    stop: number,
    end: number,
    bstart: number,
    bstop: number,
  ): void {
    if (this.length === this.piece.length) this.grow(this.length * 2);
    this.start ??= new Int32Array(this.piece.length);
    this.stop ??= new Int32Array(this.piece.length);
    const i = this.length++;
    this.piece[i] = piece;
    this.start[i] = start;
    this.stop[i] = stop;
    this.ends[i] = end - this.base;
    this.bstart[i] = bstart;
    this.bstop[i] = bstop;
  }

  private grow(n: number): void {
    n = Math.max(n, 16);
    const copy = (a: Int32Array): Int32Array => {
      const b = new Int32Array(n);
      b.set(a.subarray(0, this.length));
      return b;
    };
    this.piece = copy(this.piece);
    this.ends = copy(this.ends);
    this.bstart = copy(this.bstart);
    this.bstop = copy(this.bstop);
    if (this.start) this.start = copy(this.start);
    if (this.stop) this.stop = copy(this.stop);
  }
}
