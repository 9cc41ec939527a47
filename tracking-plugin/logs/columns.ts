// Metric points as columns: per point a key id and three numbers in typed arrays, no object per
// point. Grown by doubling; clear() empties it for the next batch and keeps the arrays and keys.
import type { MetricPoint } from '../types';

/** Past this many distinct keys clear() forgets them too (a log that names a new key per line). */
const KEEP_KEYS = 4096;
/** Per-slot key cache size: a line's k-th metric is usually the same key as the line before's. */
const SLOTS = 8;

export class PointColumns {
  /** Points held. */
  length = 0;
  /** Point i's key is keys[keyIds[i]]. */
  keyIds = new Int32Array(16);
  values = new Float64Array(16);
  steps = new Float64Array(16);
  timestamps = new Float64Array(16);
  /** The distinct keys, by id (first seen first). */
  readonly keys: string[] = [];
  private readonly ids = new Map<string, number>();
  private readonly slotKey: (string | undefined)[] = new Array<string | undefined>(SLOTS).fill(undefined);
  private readonly slotId = new Int32Array(SLOTS);

  /** The id of `key` (added to the table when new). */
  idOf(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.keys.length;
      this.keys.push(key);
      this.ids.set(key, id);
    }
    return id;
  }

  /** idOf, first trying the key last seen at a line's metric number `slot` (no map lookup). */
  idAt(key: string, slot: number): number {
    if (slot >= SLOTS) return this.idOf(key);
    if (this.slotKey[slot] === key) return this.slotId[slot];
    const id = this.idOf(key);
    this.slotKey[slot] = key;
    this.slotId[slot] = id;
    return id;
  }

  push(id: number, value: number, step: number, timestamp: number): void {
    if (this.length === this.values.length) this.grow(this.length * 2);
    const i = this.length++;
    this.keyIds[i] = id;
    this.values[i] = value;
    this.steps[i] = step;
    this.timestamps[i] = timestamp;
  }

  key(i: number): string {
    return this.keys[this.keyIds[i]];
  }

  /** Points [from, to) as objects (for tests and small consumers; the hot paths read the columns). */
  toPoints(from = 0, to = this.length): MetricPoint[] {
    to = Math.min(to, this.length);
    const out = new Array<MetricPoint>(Math.max(0, to - from));
    for (let i = from; i < to; i++)
      out[i - from] = {
        key: this.key(i),
        value: this.values[i],
        step: this.steps[i],
        timestamp: this.timestamps[i],
      };
    return out;
  }

  /** Empty, for the next batch; ids stay valid unless the key table grew past KEEP_KEYS. */
  clear(): void {
    this.length = 0;
    if (this.keys.length > KEEP_KEYS) {
      this.keys.length = 0;
      this.ids.clear();
      this.slotKey.fill(undefined);
    }
  }

  static from(points: readonly MetricPoint[]): PointColumns {
    const c = new PointColumns();
    for (const p of points) c.push(c.idOf(p.key), p.value, p.step, p.timestamp);
    return c;
  }

  private grow(n: number): void {
    const copy = <T extends Int32Array | Float64Array>(from: T, to: T): T => {
      to.set(from.subarray(0, this.length));
      return to;
    };
    this.keyIds = copy(this.keyIds, new Int32Array(n));
    this.values = copy(this.values, new Float64Array(n));
    this.steps = copy(this.steps, new Float64Array(n));
    this.timestamps = copy(this.timestamps, new Float64Array(n));
  }
}
