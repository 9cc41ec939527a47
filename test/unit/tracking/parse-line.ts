// A parser's metrics for one line as objects, from its parseInto: what the parser tests compare.
import type { LineParser } from '../../../tracking-plugin/parsers';
import { metricsOut } from '../../../tracking-plugin/parsers/out';

export interface ParsedMetric {
  key: string;
  value: number;
  /** Absent when the line carries no step; the reader then numbers that key's values 0, 1, 2... per rank. */
  step?: number;
}

export interface ParsedLine {
  metrics: ParsedMetric[];
  /** Host name the line mentions (the polynomial example prints it). */
  host?: string;
}

/** The metrics (no `step` where there is none), null for none. */
export function parseLine(parser: LineParser, line: string): ParsedLine | null {
  const out = metricsOut();
  parser.parseInto(line, out);
  if (out.n === 0) return null;
  const metrics: ParsedMetric[] = [];
  for (let i = 0; i < out.n; i++) {
    const step = out.steps[i];
    metrics.push(
      step === undefined
        ? { key: out.keys[i], value: out.values[i] }
        : { key: out.keys[i], value: out.values[i], step },
    );
  }
  return out.host === undefined ? { metrics } : { metrics, host: out.host };
}
