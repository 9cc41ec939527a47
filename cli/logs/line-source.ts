// One rank's stdout or stderr line by line from where it stopped, line i paired with its times file's line i.
import { readLogRange } from '../../core';
import type { LogLine, LogStream } from './line';

const CHUNK = 1 << 16;
/** A line longer than this is passed on in pieces, so memory stays bounded for any line length. */
export const MAX_PIECE = 16 << 20;

/** A growing file read in chunks, split at newlines. */
class LineFile {
  private offset = 0; // bytes read into `buf` so far
  private buf: Buffer = Buffer.alloc(0);
  lines = 0; // complete lines taken

  constructor(
    private readonly runDir: string,
    private readonly file: string,
  ) {}

  /** The next line with its newline (and the line's number); with `final`, a last line without
   *  one; a piece of a line longer than MAX_PIECE. Undefined: nothing more now. */
  async take(final: boolean): Promise<{ bytes: Buffer; index: number } | undefined> {
    for (;;) {
      const nl = this.buf.indexOf(0x0a);
      if (nl >= 0) {
        const bytes = this.buf.subarray(0, nl + 1);
        this.buf = this.buf.subarray(nl + 1);
        return { bytes, index: this.lines++ };
      }
      if (this.buf.length >= MAX_PIECE) {
        const bytes = this.buf;
        this.buf = Buffer.alloc(0);
        return { bytes, index: this.lines };
      }
      const more = await readLogRange(this.runDir, this.file, this.offset, CHUNK);
      if (more.length === 0) break;
      this.offset += more.length;
      this.buf = this.buf.length ? Buffer.concat([this.buf, more]) : more;
    }
    if (!final || this.buf.length === 0) return undefined;
    const bytes = this.buf;
    this.buf = Buffer.alloc(0);
    return { bytes, index: this.lines++ };
  }
}

export class LineSource {
  private readonly log: LineFile;
  private readonly times: LineFile;
  private lastTime = -Infinity;
  private timed = { index: -1, time: null as number | null }; // the pieces of a long line share its time

  constructor(
    runDir: string,
    readonly rank: number,
    readonly stream: LogStream,
    file: string,
    timesFile: string,
  ) {
    this.log = new LineFile(runDir, file);
    this.times = new LineFile(runDir, timesFile);
  }

  /** The next line available now, or undefined; `final` (the job ended) takes a partial last line. */
  async next(final: boolean): Promise<LogLine | undefined> {
    const got = await this.log.take(final);
    if (!got) return undefined;
    if (this.timed.index !== got.index) this.timed = { index: got.index, time: await this.timeOf(got.index) };
    const time = this.timed.time;
    if (time !== null) this.lastTime = time;
    return { rank: this.rank, stream: this.stream, time, sortTime: this.lastTime, bytes: got.bytes };
  }

  /** Line `index` of the times file; a line whose time is not written yet gets none, and its time,
   *  arriving later, is skipped so that the times stay paired with their lines. */
  private async timeOf(index: number): Promise<number | null> {
    while (this.times.lines <= index) {
      const t = await this.times.take(false);
      if (!t) return null;
      if (t.index === index) {
        const v = Number.parseFloat(t.bytes.toString('latin1'));
        return Number.isFinite(v) ? v : null;
      }
    }
    return null;
  }
}
