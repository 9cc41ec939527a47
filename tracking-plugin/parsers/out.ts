// MetricsOut: where a parser's parseInto writes a line's metrics.
import type { LineParser, MetricsOut } from './types';

export function metricsOut(): MetricsOut {
  return { n: 0, keys: [], values: [], steps: [], host: undefined, hostWanted: true };
}

export function emit(out: MetricsOut, key: string, value: number, step: number | undefined): void {
  const i = out.n++;
  out.keys[i] = key;
  out.values[i] = value;
  out.steps[i] = step;
}

/** A parser from its parseInto (and byte reader). */
export const lineParser = (
  name: string,
  parseInto: LineParser['parseInto'],
  parseBytes?: LineParser['parseBytes'],
): LineParser => ({ name, parseInto, parseBytes });
