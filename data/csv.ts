// RFC 4180 CSV in one pass: fields, each record's first line and raw text (shards repeat input rows byte for
// byte). Records end with CRLF or LF, blank lines are skipped; lines without a quote take a fast path.
import { TrackLaunchError } from '../core';

/** Called once per record: its fields, the (1-based) line it starts on, and text.slice(start, end) is its raw text. */
type RecordVisitor = (fields: string[], line: number, start: number, end: number) => void;

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

export function csvError(
  file: string,
  line: number,
  message: string,
  details: Record<string, unknown> = {},
): TrackLaunchError {
  return new TrackLaunchError('INVALID_SPEC', `${file} line ${line}: ${message}`, {
    details: { file, line, ...details },
  });
}

/** Visits every record of `text`; throws a TrackLaunchError naming `file` and the line on malformed CSV. */
export function forEachCsvRecord(text: string, file: string, visit: RecordVisitor): void {
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // byte order mark
  let line = 1;
  let nextQuote = -1;
  let nextCr = -1;
  while (i < n) {
    let eol = text.indexOf('\n', i);
    if (eol < 0) eol = n;
    if (nextQuote < i) nextQuote = indexOr(text, '"', i, n);
    if (nextQuote >= eol) {
      let end = eol;
      if (end > i && text.charCodeAt(end - 1) === CR) end--;
      if (nextCr < i) nextCr = indexOr(text, '\r', i, n);
      if (nextCr < end)
        throw csvError(file, line, 'a carriage return outside quotes (lines must end with CRLF or LF)');
      if (end > i) visit(text.slice(i, end).split(','), line, i, end);
      line++;
      i = eol + 1;
      continue;
    }
    const r = slowRecord(text, i, line, file);
    visit(r.fields, line, i, r.end);
    line = r.nextLine;
    i = r.next;
  }
}

function indexOr(text: string, ch: string, from: number, n: number): number {
  const k = text.indexOf(ch, from);
  return k < 0 ? n : k;
}

/** One record that contains a quote somewhere: a small state machine. */
function slowRecord(
  text: string,
  start: number,
  startLine: number,
  file: string,
): { fields: string[]; end: number; next: number; nextLine: number } {
  const n = text.length;
  const fields: string[] = [];
  let i = start;
  let line = startLine;
  for (;;) {
    if (i < n && text.charCodeAt(i) === QUOTE) {
      let j = i + 1;
      let value = '';
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0)
          throw csvError(
            file,
            startLine,
            `a quoted field${line === startLine ? '' : ` (opened on line ${line})`} is never closed (a quote inside a field must be doubled: "")`,
          );
        const part = text.slice(j, q);
        value += part;
        line += part.split('\n').length - 1;
        if (text.charCodeAt(q + 1) === QUOTE) {
          value += '"';
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      fields.push(value);
      if (i >= n) return { fields, end: i, next: i, nextLine: line };
      const c = text.charCodeAt(i);
      if (c === COMMA) {
        i++;
        continue;
      }
      if (c === LF) return { fields, end: i, next: i + 1, nextLine: line + 1 };
      if (c === CR && text.charCodeAt(i + 1) === LF)
        return { fields, end: i, next: i + 2, nextLine: line + 1 };
      throw csvError(
        file,
        line,
        `${JSON.stringify(text[i])} after a closing quote (a quoted field must end at a comma or the end of the line)`,
      );
    }
    let j = i;
    let c = 0;
    for (; j < n; j++) {
      c = text.charCodeAt(j);
      if (c === COMMA || c === LF || c === CR) break;
      if (c === QUOTE) {
        throw csvError(
          file,
          line,
          'a quote inside an unquoted field (quote the whole field and double the quote: "a""b")',
        );
      }
    }
    fields.push(text.slice(i, j));
    if (j >= n) return { fields, end: j, next: j, nextLine: line };
    if (c === COMMA) {
      i = j + 1;
      continue;
    }
    if (c === LF) return { fields, end: j, next: j + 1, nextLine: line + 1 };
    if (text.charCodeAt(j + 1) === LF) return { fields, end: j, next: j + 2, nextLine: line + 1 };
    throw csvError(file, line, 'a carriage return outside quotes (lines must end with CRLF or LF)');
  }
}

/** One record, without the line ending; a field is quoted (quotes doubled) only when it holds a comma, quote or line break. */
export function csvRecord(fields: readonly string[]): string {
  return fields.map((v) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)).join(',');
}
