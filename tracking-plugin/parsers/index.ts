// Choosing a parser: --metrics-format, else job.json's spec.metrics_format, else `auto`,
// which tries every built-in format on each line (they cannot be confused with each other).
import { invalidOption } from '../../launcher/errors';
import { jsonlParser } from './jsonl';
import { lunaParser } from './luna';
import { polynomialParser } from './polynomial';
import { regexParser } from './regex';
import type { LineParser, ParsedLine } from './types';

export type { LineParser, ParsedLine, ParsedMetric } from './types';
export const FORMATS = ['auto', 'polynomial', 'luna', 'jsonl', 'regex:<pattern>'] as const;

const BUILT_IN: LineParser[] = [jsonlParser, polynomialParser, lunaParser];

export const autoParser: LineParser = {
  name: 'auto',
  parse(line: string): ParsedLine | null {
    for (const p of BUILT_IN) {
      const r = p.parse(line);
      if (r) return r;
    }
    return null;
  },
};

export function parserFor(format: string | undefined): LineParser {
  const f = (format ?? 'auto').trim();
  if (f === '' || f === 'auto') return autoParser;
  if (f.startsWith('regex:')) return regexParser(f.slice('regex:'.length));
  const p = BUILT_IN.find((b) => b.name === f);
  if (!p) throw invalidOption('metrics-format', format, `use one of ${FORMATS.join(', ')}`);
  return p;
}

/** Parse one line without ever throwing (a parser bug must not stop ingestion). */
export function safeParse(parser: LineParser, line: string): ParsedLine | null {
  try {
    return parser.parse(line);
  } catch {
    return null; // counted as skipped by the caller, like any other line that does not parse
  }
}
