// One rank's stdout or stderr line by line from where it stopped, line i paired with its times file's line i.
import { FollowedFile } from './followed-file';
import type { LogLine, LogStream } from './line';

const CHUNK = 1 << 16;
const CR = 0x0d;
const LF = 0x0a;
/** A line longer than this is passed on in pieces, so memory stays bounded for any line length. */
export const MAX_PIECE = 16 << 20;

/** A growing file read in chunks, split at newlines; a file truncated or replaced is read from
 *  its start again, its lines counted from 0 in a new generation. */
class LineFile {
  private readonly src: FollowedFile;
  private buf: Buffer = Buffer.alloc(0);
  lines = 0; // complete lines taken
  generation = 0;

  constructor(runDir: string, file: string, onRestart?: (file: string) => void) {
    this.src = new FollowedFile(runDir, file, onRestart);
  }

  /** The next line with its newline (its number and generation); with `final`, a last line without
   *  one; a piece of a line longer than MAX_PIECE; the unended last line of a file that was then
   *  truncated or replaced. Undefined: nothing more now. */
  async take(final: boolean): Promise<{ bytes: Buffer; index: number; generation: number } | undefined> {
    for (;;) {
      const nl = this.buf.indexOf(0x0a);
      if (nl >= 0) {
        const bytes = this.buf.subarray(0, nl + 1);
        this.buf = this.buf.subarray(nl + 1);
        return { bytes, index: this.lines++, generation: this.generation };
      }
      if (this.buf.length >= MAX_PIECE) {
        const bytes = this.buf;
        this.buf = Buffer.alloc(0);
        return { bytes, index: this.lines, generation: this.generation };
      }
      const more = await this.src.read(CHUNK);
      if (more.restarted) {
        const unended = { bytes: this.buf, index: this.lines, generation: this.generation };
        this.buf = more.bytes;
        this.lines = 0;
        this.generation++;
        if (unended.bytes.length) return unended;
        continue;
      }
      if (more.bytes.length === 0) break;
      this.buf = this.buf.length ? Buffer.concat([this.buf, more.bytes]) : more.bytes;
    }
    if (!final || this.buf.length === 0) return undefined;
    const bytes = this.buf;
    this.buf = Buffer.alloc(0);
    return { bytes, index: this.lines++, generation: this.generation };
  }

  /** From the start again (its log was truncated or replaced, and so, likely, was this file). */
  rewind(): void {
    this.src.rewind();
    this.buf = Buffer.alloc(0);
    this.lines = 0;
  }
}

export class LineSource {
  private readonly log: LineFile;
  private readonly times: LineFile;
  private lastTime = -Infinity;
  private timed = { index: -1, time: null as number | null }; // the pieces of a long line share its time
  private generation = 0;
  private parts: Buffer[] = []; // the lines still to come of a row that a lone \r cut

  constructor(
    runDir: string,
    readonly rank: number,
    readonly stream: LogStream,
    file: string,
    timesFile: string,
    onRestart?: (file: string) => void,
  ) {
    this.log = new LineFile(runDir, file, onRestart);
    this.times = new LineFile(runDir, timesFile);
  }

  /** The next line available now, or undefined; `final` (the job ended) takes a partial last line.
   *  A row (what ends in \n, and has one time in the times file) that a lone \r cuts is several
   *  lines, each with the row's time, as a terminal shows them. */
  async next(final: boolean): Promise<LogLine | undefined> {
    if (this.parts.length === 0) {
      const got = await this.log.take(final);
      if (!got) return undefined;
      if (got.generation !== this.generation) {
        this.generation = got.generation;
        this.times.rewind();
        this.timed = { index: -1, time: null };
      }
      if (this.timed.index !== got.index)
        this.timed = { index: got.index, time: await this.timeOf(got.index) };
      this.parts = terminalLines(got.bytes).reverse();
    }
    const time = this.timed.time;
    if (time !== null) this.lastTime = time;
    const bytes = this.parts.pop() as Buffer;
    return { rank: this.rank, stream: this.stream, time, sortTime: this.lastTime, bytes };
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

/** A row cut after each lone \r (one not followed by \n), each part with its line end: together the
 *  row's bytes. */
export function terminalLines(row: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let from = 0;
  for (let cr = row.indexOf(CR); cr >= 0; cr = row.indexOf(CR, cr + 1)) {
    if (cr + 1 === row.length || row[cr + 1] === LF) continue;
    parts.push(row.subarray(from, cr + 1));
    from = cr + 1;
  }
  parts.push(row.subarray(from));
  return parts;
}
