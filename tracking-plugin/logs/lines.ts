// Byte-exact line splitting: only complete lines (ending in \n) are returned, so a line that is
// still being written waits for its newline. Offsets are bytes, so a reader can resume exactly.

export interface LogLine {
  text: string;
  /** Byte offset just past this line's newline, relative to the file start. */
  end: number;
}

export function completeLines(buf: Buffer, base: number): { lines: LogLine[]; consumed: number } {
  const lines: LogLine[] = [];
  let start = 0;
  for (;;) {
    const nl = buf.indexOf(0x0a, start);
    if (nl < 0) break;
    let stop = nl;
    if (stop > start && buf[stop - 1] === 0x0d) stop -= 1;
    lines.push({ text: buf.toString('utf8', start, stop), end: base + nl + 1 });
    start = nl + 1;
  }
  return { lines, consumed: start };
}

/** `1764669000.123456` (Unix seconds, microseconds) -> ms since the epoch, exactly, without float error. */
export function tsToMs(line: string): number | undefined {
  const m = /^\s*(\d{1,12})(?:\.(\d{1,9}))?\s*$/.exec(line);
  if (!m) return undefined;
  const frac = ((m[2] ?? '') + '000').slice(0, 3);
  return Number(m[1]) * 1000 + Number(frac);
}
