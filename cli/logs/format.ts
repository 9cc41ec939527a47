// How `logs` prints a line (pure): labelled like `srun --label`, raw, or one JSON object per line.
import type { LogLine } from './line';

export type LineFormat = 'labelled' | 'raw' | 'json';

/** `[rank 3] ` for stdout, `[rank 3 stderr] ` for stderr. */
export const rankLabel = (line: Pick<LogLine, 'rank' | 'stream'>): string =>
  line.stream === 'stderr' ? `[rank ${line.rank} stderr] ` : `[rank ${line.rank}] `;

const NL = Buffer.from('\n');

/** The line's bytes without its line end (\n, \r\n or a lone \r). */
function content(b: Buffer): Buffer {
  let n = b.length;
  if (n && b[n - 1] === 0x0a) n--;
  if (n && b[n - 1] === 0x0d) n--;
  return b.subarray(0, n);
}

/** The line's text without its line end, decoded as UTF-8 (invalid bytes become U+FFFD). */
export const lineText = (line: LogLine): string => content(line.bytes).toString('utf8');

export function formatLine(line: LogLine, format: LineFormat): Buffer {
  if (format === 'json') {
    const obj = { rank: line.rank, stream: line.stream, time: line.time, text: lineText(line) };
    return Buffer.from(JSON.stringify(obj) + '\n');
  }
  if (format === 'raw') return line.bytes; // byte-exact, a last line without newline included
  const ends = line.bytes.length > 0 && line.bytes[line.bytes.length - 1] === 0x0a;
  // a line a lone \r ended (a progress bar's update) is printed with \n: another rank's line follows
  return Buffer.concat([
    Buffer.from(rankLabel(line)),
    ends ? line.bytes : content(line.bytes),
    ...(ends ? [] : [NL]),
  ]);
}
