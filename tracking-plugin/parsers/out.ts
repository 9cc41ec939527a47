// MetricsOut: a parser's fast path (parseInto) writes a line's metrics here; parse is built on it.
import type { LineParser, MetricsOut, ParsedLine, ParsedMetric } from './types';

export function metricsOut(): MetricsOut {
  return { n: 0, keys: [], values: [], steps: [], host: undefined, hostWanted: true };
}

export function emit(out: MetricsOut, key: string, value: number, step: number | undefined): void {
  const i = out.n++;
  out.keys[i] = key;
  out.values[i] = value;
  out.steps[i] = step;
}

/** A parser from its parseInto (and byte reader), with parse built on parseInto. */
export const lineParser = (
  name: string,
  parseInto: LineParser['parseInto'],
  parseBytes?: LineParser['parseBytes'],
): LineParser => ({ name, parse: (line) => parseVia(parseInto, line), parseInto, parseBytes });

/** parse, from parseInto: the metrics as objects (no `step` where there is none), null for none. */
function parseVia(parseInto: (line: string, out: MetricsOut) => void, line: string): ParsedLine | null {
  const out = metricsOut();
  parseInto(line, out);
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
