// Splitting what a run needs logged into runs/log-batch requests within MLflow's limits (pure):
// 1000 metrics, 100 params, 100 tags, 1000 items in all, and under 1 MB of JSON per request.
import { toWire, type WireNumber } from './values';

export interface KeyValue {
  key: string;
  value: string;
}
export interface WireMetric {
  key: string;
  value: WireNumber;
  timestamp: number;
  step: number;
}
export interface LogBatchBody {
  run_id: string;
  metrics: WireMetric[];
  params: KeyValue[];
  tags: KeyValue[];
}
export interface MetricIn {
  key: string;
  value: number;
  timestamp: number;
  step: number;
}

export const LIMITS = { metrics: 1000, params: 100, tags: 100, total: 1000, bytes: 950_000 };
export type Limits = typeof LIMITS;
export const MAX_PARAM_VALUE = 6000;
export const MAX_TAG_VALUE = 8000;

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

export function wireMetric(m: MetricIn): WireMetric {
  return { key: m.key, value: toWire(m.value), timestamp: m.timestamp, step: m.step };
}

export function splitBatch(
  runId: string,
  input: { metrics?: readonly MetricIn[]; params?: readonly KeyValue[]; tags?: readonly KeyValue[] },
  limits: Limits = LIMITS,
): LogBatchBody[] {
  const out: LogBatchBody[] = [];
  const empty = (): LogBatchBody => ({ run_id: runId, metrics: [], params: [], tags: [] });
  const overhead = bytes(empty());
  let cur = empty();
  let size = overhead;
  const count = () => cur.metrics.length + cur.params.length + cur.tags.length;
  const flush = () => {
    if (count() > 0) out.push(cur);
    cur = empty();
    size = overhead;
  };
  const add = (kind: 'metrics' | 'params' | 'tags', item: WireMetric | KeyValue) => {
    const b = bytes(item) + 1; // + the comma between items
    if (cur[kind].length >= limits[kind] || count() >= limits.total || size + b > limits.bytes) flush();
    (cur[kind] as unknown[]).push(item);
    size += b;
  };
  for (const p of input.params ?? []) add('params', { key: p.key, value: p.value.slice(0, MAX_PARAM_VALUE) });
  for (const t of input.tags ?? []) add('tags', { key: t.key, value: t.value.slice(0, MAX_TAG_VALUE) });
  for (const m of input.metrics ?? []) add('metrics', wireMetric(m));
  flush();
  return out;
}
