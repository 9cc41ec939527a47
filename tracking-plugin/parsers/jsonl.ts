// The jsonl protocol: one line of JSON per logged step, for users' own scripts (docs/tracking.md):
//   {"track_launch": 1, "step": 10, "metrics": {"loss": 0.25, "acc": 0.9}}
// Python's json.dumps writes NaN / Infinity / -Infinity bare; they are accepted, as are the strings.
import { parseStep } from './number';
import type { LineParser, ParsedLine, ParsedMetric } from './types';

const MAX_KEY = 240; // MLflow allows 250; the parent adds `/mean`

function toValue(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Python's non-standard literals; quoting them may touch a string value, which is then still a string.
    try {
      return JSON.parse(text.replace(/(?<=[:,\[]\s*)(-?Infinity|NaN)(?=\s*[,}\]])/g, '"$1"'));
    } catch {
      return undefined; // not a protocol line; the caller counts it as skipped
    }
  }
}

export const jsonlParser: LineParser = {
  name: 'jsonl',
  parse(line: string): ParsedLine | null {
    const t = line.trim();
    if (!t.startsWith('{') || !t.includes('track_launch')) return null;
    const obj = parseJson(t);
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return null;
    const rec = obj as Record<string, unknown>;
    if (rec.track_launch !== 1) return null;
    const m = rec.metrics;
    if (!m || typeof m !== 'object' || Array.isArray(m)) return null;
    const step = typeof rec.step === 'number' ? parseStep(rec.step) : undefined;
    if (rec.step !== undefined && step === undefined) return null;
    const metrics: ParsedMetric[] = [];
    for (const [key, v] of Object.entries(m as Record<string, unknown>)) {
      const value = toValue(v);
      if (value === undefined || key.length === 0 || key.length > MAX_KEY) continue;
      metrics.push(step === undefined ? { key, value } : { key, value, step });
    }
    return metrics.length ? { metrics } : null;
  },
};
