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

/** The points of the first `count` rows (all by default), appended to `into`; row i (a line ended
 *  by \n) has the time times[i]. A LineBatch's rows are read from its bytes where the parser can
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
  const bytes = batch && parser.parseBytes ? batch.buffer : undefined;
  let cr = -1; // the first \r in the batch's buffer at or after the row being read (its length: none)
  for (let i = 0; i < n; i++) {
    // A lone \r ends a line as \n does (a progress bar's updates): the parts of such a row are
    // parsed one at a time, each with the row's time (.out.ts stamps rows, which only \n ends).
    const at = batch ? batch.byteStart(i) : -1;
    if (at >= 0 && cr < at) {
      cr = batch!.buffer.indexOf(CR, at); // one scan finds the \r of this row and of the rows after it
      if (cr < 0) cr = batch!.buffer.length;
    }
    if (at >= 0 ? cr < batch!.byteStop(i) : (batch ? batch.text(i) : texts[i]).includes('\r')) {
      const parts = (batch ? batch.text(i) : texts[i]).split('\r');
      const sub = extractPoints(
        parser,
        parts,
        new Array<number>(parts.length).fill(times[i]),
        counters,
        into,
      );
      skipped += sub.skipped;
      host ??= sub.host;
      continue;
    }
    let line: string | undefined;
    out.n = 0;
    out.host = undefined;
    try {
      const from = bytes ? at : -1;
      if (from < 0 || !parser.parseBytes!(bytes!, from, (batch as LineBatch).byteStop(i), out)) {
        out.n = 0;
        out.host = undefined;
        line = batch ? batch.text(i) : texts[i];
        parser.parseInto(line, out);
      }
    } catch {
      out.n = 0; // a parser bug must not stop ingestion: counted as skipped, like any line that does not parse
    }
    if (out.n === 0) {
      line ??= batch ? batch.text(i) : texts[i];
      if (NON_BLANK.test(line)) skipped += 1; // line.trim() !== ''
      continue;
    }
    // a copy: the host is kept (in the cursor), and a substring can keep the whole decoded text alive
    if (host === undefined && out.host !== undefined) {
      host = (' ' + out.host).slice(1);
      out.hostWanted = false; // the others are not kept
    }
    const timestamp = times[i];
    for (let k = 0; k < out.n; k++) {
      const key = out.keys[k];
      let step = out.steps[k];
      if (step === undefined) {
        step = hasOwn.call(counters, key) ? counters[key] : 0; // not Object.prototype's (a key `toString`)
        countTo(counters, key, step + 1);
      }
      into.push(into.idAt(key, k), out.values[k], step, timestamp);
    }
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
