// Lines + their times -> metric points in columns (pure): the one path of ingestion and the reports.
// Values without a step get the next number of a per-key counter, which the caller keeps (and
// persists) across calls so numbering is stable.
import type { LineParser, MetricsOut } from '../parsers';
import { metricsOut } from '../parsers/out';
import type { PointColumns } from './columns';
import { LineBatch } from './lines';

const NON_BLANK = /\S/;

interface Extracted {
  /** Points appended to the columns. */
  added: number;
  skipped: number;
  host?: string;
}

/** The points of the first `count` rows (all by default), appended to `into`; row i (a line ended by
 *  \n) has the time times[i]. A LineBatch's rows are read from its bytes where the parser can
 *  (parseBytes), else their texts are cut one at a time, as they are parsed. */
export function extractPoints(
  parser: LineParser,
  lines: readonly string[] | LineBatch,
  times: readonly number[],
  counters: Record<string, number>,
  into: PointColumns,
  count = lines.length,
): Extracted {
  const batch = lines instanceof LineBatch ? lines : undefined;
  const texts = lines as readonly string[];
  const n = Math.min(count, lines.length);
  const before = into.length;
  let skipped = 0;
  let host: string | undefined;
  // A line's metrics from parseBytes where the parser has it and takes the line, else from parseInto.
  const out: MetricsOut = metricsOut();
  const buf = batch?.buffer;
  const bytes = batch && parser.parseBytes ? buf : undefined;
  let cr = -1; // the first \r in buf at or after the line being read (buf.length: none)
  /** The points of one terminal line: `text`, else line i of the batch (read from its bytes where
   *  the parser can); none: counted as skipped unless blank. */
  const take = (text: string | undefined, i: number, timestamp: number): void => {
    out.n = 0;
    out.host = undefined;
    try {
      const at = text === undefined && bytes ? batch!.byteStart(i) : -1;
      if (at < 0 || !parser.parseBytes!(bytes!, at, batch!.byteStop(i), out)) {
        out.n = 0;
        out.host = undefined;
        text ??= batch!.text(i);
        parser.parseInto(text, out);
      }
    } catch {
      out.n = 0; // a parser bug must not stop ingestion: counted as skipped, like any line that does not parse
    }
    if (out.n === 0) {
      text ??= batch!.text(i);
      if (NON_BLANK.test(text)) skipped += 1; // text.trim() !== ''
      return;
    }
    // a copy: the host is kept (in the cursor), and a substring can keep the whole decoded text alive
    if (host === undefined && out.host !== undefined) {
      host = (' ' + out.host).slice(1);
      out.hostWanted = false; // the others are not kept
    }
    for (let k = 0; k < out.n; k++) {
      const key = out.keys[k];
      let step = out.steps[k];
      if (step === undefined) {
        step = hasOwn.call(counters, key) ? counters[key] : 0; // not Object.prototype's (a key `toString`)
        countTo(counters, key, step + 1);
      }
      into.push(into.idAt(key, k), out.values[k], step, timestamp);
    }
  };
  // A lone \r ends a line as \n does (a progress bar's updates): each part is parsed on its own,
  // with its row's time (.out.ts stamps rows, which only \n ends).
  const parts = (text: string, timestamp: number): void => {
    for (const part of text.split('\r')) take(part, -1, timestamp);
  };
  for (let i = 0; i < n; i++) {
    const at = batch ? batch.byteStart(i) : -1;
    if (at >= 0) {
      // a row in the buffer: one scan of the buffer finds its \r, and those of the rows after it
      if (cr < at) {
        cr = buf!.indexOf(CR, at);
        if (cr < 0) cr = buf!.length;
      }
      if (cr >= batch!.byteStop(i)) take(undefined, i, times[i]);
      else parts(batch!.text(i), times[i]);
      continue;
    }
    const text = batch ? batch.text(i) : texts[i];
    if (text.indexOf('\r') < 0) take(text, i, times[i]);
    else parts(text, times[i]);
  }
  const added = into.length - before;
  return host === undefined ? { added, skipped } : { added, skipped, host };
}

const CR = 0x0d;
const hasOwn = Object.prototype.hasOwnProperty;

/** counters[key] = n, also for the key `__proto__` (an assignment would set the prototype). */
function countTo(counters: Record<string, number>, key: string, n: number): void {
  if (key !== '__proto__') counters[key] = n;
  else
    Object.defineProperty(counters, key, { value: n, writable: true, enumerable: true, configurable: true });
}
