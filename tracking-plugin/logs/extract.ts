// Lines + their times -> metric points (pure). Values without a step get the next number of a
// per-key counter, which the caller keeps (and persists) across calls so numbering is stable.
import { safeParse, type LineParser } from '../parsers';
import type { MetricPoint } from '../types';

export interface Extracted {
  points: MetricPoint[];
  skipped: number;
  host?: string;
}

export function extractPoints(
  parser: LineParser,
  lines: readonly string[],
  times: readonly number[],
  counters: Record<string, number>,
): Extracted {
  const points: MetricPoint[] = [];
  let skipped = 0;
  let host: string | undefined;
  lines.forEach((line, i) => {
    const parsed = safeParse(parser, line);
    if (!parsed || parsed.metrics.length === 0) {
      if (line.trim() !== '') skipped += 1;
      return;
    }
    host ??= parsed.host;
    for (const m of parsed.metrics) {
      let step = m.step;
      if (step === undefined) {
        step = counters[m.key] ?? 0;
        counters[m.key] = step + 1;
      }
      points.push({ key: m.key, value: m.value, step, timestamp: times[i] });
    }
  });
  return host === undefined ? { points, skipped } : { points, skipped, host };
}
