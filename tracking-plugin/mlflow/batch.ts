// Splitting what a run needs logged into runs/log-batch requests within MLflow's limits (pure):
// 1000 metrics, 100 params, 100 tags, 1000 items in all, and under 1 MB of JSON per request.
import type { MetricPoint as MetricIn } from '../types';
import { toWire, type WireNumber } from './values';

export type { MetricIn };

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

export const LIMITS = { metrics: 1000, params: 100, tags: 100, total: 1000, bytes: 950_000 };
type Limits = typeof LIMITS;
export const MAX_PARAM_VALUE = 6000;
export const MAX_TAG_VALUE = 8000;

/** The first `limit` UTF-16 units of `value`, not splitting a surrogate pair (MLflow counts code
 *  points, which are never more than UTF-16 units: the cut is always within its limit). */
export function cutTo(value: string, limit: number): string {
  if (value.length <= limit) return value;
  const end = /[\uD800-\uDBFF]/.test(value[limit - 1] ?? '') ? limit - 1 : limit;
  return value.slice(0, end);
}

/** A value we make ourselves (a command line, a node list) within `limit`: cut with a note of its
 *  length, so the runs table shows it was cut; the full value stays in job.json. */
export function fitValue(value: string, limit: number): string {
  if (value.length <= limit) return value;
  const note = ` ... [cut: ${value.length} characters in all]`;
  return cutTo(value, limit - note.length) + note;
}

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

/** JSON bytes of `{"key":..,"value":..,"timestamp":..,"step":..}` around the key. */
const METRIC_FRAME = bytes({ key: '', value: 0, timestamp: 0, step: 0 }) - bytes('') - 3;

/** JSON bytes of a key, remembered in `keys` (a run of points repeats a few keys). */
function keyBytes(key: string, keys: Map<string, number>): number {
  let k = keys.get(key);
  if (k === undefined) keys.set(key, (k = bytes(key)));
  return k;
}

/** bytes(m) of a wire metric without serialising it (a finite number's JSON is String(n); a
 *  non-finite value is one of the quoted names). */
function metricBytes(m: WireMetric, keys: Map<string, number>): number {
  const v = typeof m.value === 'number' ? String(m.value).length : m.value.length + 2;
  return METRIC_FRAME + keyBytes(m.key, keys) + v + String(m.timestamp).length + String(m.step).length;
}

/** The most JSON characters of a wire metric's three numbers: String() of a double is at most 25
 *  ("-0.0000012345678901234567"), a non-finite value's quoted name 11; rounded up. */
const NUMBERS_MAX = 3 * 32;

/** Metrics alone that fit one request by an upper bound of their size (each key's exact JSON, the
 *  numbers at their longest): the common case, without counting each metric's digits. */
function fitsOneRequest(metrics: readonly MetricIn[], limits: Limits, overhead: number): boolean {
  if (metrics.length > limits.metrics || metrics.length > limits.total) return false;
  const keys = new Map<string, number>();
  let size = overhead;
  for (const m of metrics) size += METRIC_FRAME + keyBytes(m.key, keys) + NUMBERS_MAX + 1;
  return size <= limits.bytes;
}

function wireMetric(m: MetricIn): WireMetric {
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
  const metricsIn = input.metrics ?? [];
  if (!input.params?.length && !input.tags?.length && fitsOneRequest(metricsIn, limits, overhead))
    return metricsIn.length ? [{ ...empty(), metrics: metricsIn.map(wireMetric) }] : [];
  let cur = empty();
  let size = overhead;
  const count = () => cur.metrics.length + cur.params.length + cur.tags.length;
  const flush = () => {
    if (count() > 0) out.push(cur);
    cur = empty();
    size = overhead;
  };
  const keys = new Map<string, number>();
  const add = (kind: 'metrics' | 'params' | 'tags', item: WireMetric | KeyValue) => {
    const b = (kind === 'metrics' ? metricBytes(item as WireMetric, keys) : bytes(item)) + 1; // + the comma
    if (cur[kind].length >= limits[kind] || count() >= limits.total || size + b > limits.bytes) flush();
    (cur[kind] as unknown[]).push(item);
    size += b;
  };
  // Longer values are cut here as a last guard; the sender counts them as not delivered in full.
  for (const p of input.params ?? []) add('params', { key: p.key, value: cutTo(p.value, MAX_PARAM_VALUE) });
  for (const t of input.tags ?? []) add('tags', { key: t.key, value: cutTo(t.value, MAX_TAG_VALUE) });
  for (const m of metricsIn) add('metrics', wireMetric(m));
  flush();
  return out;
}
