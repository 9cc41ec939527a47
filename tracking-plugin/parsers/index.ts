// Choosing a parser: --metrics-format, else job.json's spec.metrics_format, else `auto`,
// which tries every built-in format on each line (they cannot be confused with each other).
import { invalidOption } from '../../core';
import { jsonlParser } from './jsonl';
import { lunaParser } from './luna';
import { polynomialParser } from './polynomial';
import { regexParser } from './regex';
import { lineParser } from './out';
import type { LineParser, MetricsOut } from './types';

export type { LineParser, MetricsOut } from './types';
export const FORMATS = ['auto', 'polynomial', 'luna', 'jsonl', 'regex:<pattern>'] as const;

const BUILT_IN: LineParser[] = [jsonlParser, polynomialParser, lunaParser];
const BUILT_IN_INTO = BUILT_IN.map((p) => p.parseInto);

/** The first built-in format that finds metrics in the line (each emits only when it does). */
function autoInto(line: string, out: MetricsOut): void {
  for (let i = 0; i < BUILT_IN_INTO.length && out.n === 0; i++) BUILT_IN_INTO[i](line, out);
}

/** The line's bytes where the jsonl or polynomial fast path finds metrics in it (a line cannot be of
 *  both), else false: autoInto decides. */
function autoBytes(b: Uint8Array, from: number, to: number, out: MetricsOut): boolean {
  const n = out.n;
  if (jsonlParser.parseBytes!(b, from, to, out) && out.n > n) return true;
  return polynomialParser.parseBytes!(b, from, to, out);
}

export const autoParser = lineParser('auto', autoInto, autoBytes);

export function parserFor(format: string | undefined): LineParser {
  const f = (format ?? 'auto').trim();
  if (f === '' || f === 'auto') return autoParser;
  if (f.startsWith('regex:')) return regexParser(f.slice('regex:'.length));
  const p = BUILT_IN.find((b) => b.name === f);
  if (!p) throw invalidOption('metrics-format', format, `use one of ${FORMATS.join(', ')}`);
  return p;
}
