// How `logs` prints a line (pure): labelled like `srun --label`, raw, or one JSON object per line.
import type { LogLine } from './line';

export type LineFormat = 'labelled' | 'raw' | 'json';

/** `[rank 3] ` for stdout, `[rank 3 stderr] ` for stderr. */
export const rankLabel = (line: Pick<LogLine, 'rank' | 'stream'>): string =>
  line.stream === 'stderr' ? `[rank ${line.rank} stderr] ` : `[rank ${line.rank}] `;

const NL = Buffer.from('\n');

/** The line's text without its newline, decoded as UTF-8 (invalid bytes become U+FFFD). */
export const lineText = (line: LogLine): string => {
  const b = line.bytes;
  return b.subarray(0, b.length && b[b.length - 1] === 0x0a ? b.length - 1 : b.length).toString('utf8');
};

export function formatLine(line: LogLine, format: LineFormat): Buffer {
  if (format === 'json') {
    const obj = { rank: line.rank, stream: line.stream, time: line.time, text: lineText(line) };
    return Buffer.from(JSON.stringify(obj) + '\n');
  }
  if (format === 'raw') return line.bytes; // byte-exact, a last line without newline included
  const ends = line.bytes.length > 0 && line.bytes[line.bytes.length - 1] === 0x0a;
  return Buffer.concat([Buffer.from(rankLabel(line)), line.bytes, ...(ends ? [] : [NL])]);
}
