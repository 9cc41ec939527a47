// Per-step mean, min and max across ranks for the parent run (pure). A (key, step) is aggregated
// once every rank reported it, or at the end with the ranks that did; the timestamp is the latest
// of the ranks' own, so a re-run computes identical points (and MLflow drops the re-sent ones).
import type { PointColumns } from '../logs/columns';
import type { MetricPoint } from '../types';

export class Aggregator {
  /** key -> step -> rank -> first point that rank logged for that (key, step). */
  private readonly pending = new Map<string, Map<number, Map<number, MetricPoint>>>();
  private readonly done = new Set<string>();

  /** (key, step) pairs some rank reported that are not aggregated yet. */
  get pendingCount(): number {
    let n = 0;
    for (const steps of this.pending.values()) n += steps.size;
    return n;
  }

  /** Mark (key, step) as already aggregated (read back from the parent spool). */
  markDone(key: string, step: number): void {
    this.done.add(`${step}\u0000${key}`);
    this.pending.get(key)?.delete(step);
  }

  add(rank: number, p: MetricPoint): void {
    this.addPoint(rank, p.key, p.value, p.step, p.timestamp, p);
  }

  /** add of every point in the columns (an object made only for a point that is kept). */
  addColumns(rank: number, c: PointColumns): void {
    for (let i = 0; i < c.length; i++)
      this.addPoint(rank, c.key(i), c.values[i], c.steps[i], c.timestamps[i]);
  }

  private addPoint(
    rank: number,
    key: string,
    value: number,
    step: number,
    timestamp: number,
    p?: MetricPoint,
  ): void {
    if (this.done.has(`${step}\u0000${key}`)) return;
    let steps = this.pending.get(key);
    if (!steps) this.pending.set(key, (steps = new Map()));
    let ranks = steps.get(step);
    if (!ranks) steps.set(step, (ranks = new Map()));
    if (!ranks.has(rank)) ranks.set(rank, p ?? { key, value, step, timestamp });
  }

  /** Aggregates ready now: complete steps, or every pending step when `final`. Ordered by key, step. */
  take(worldSize: number | undefined, final: boolean): MetricPoint[] {
    const out: MetricPoint[] = [];
    for (const key of [...this.pending.keys()].sort()) {
      const steps = this.pending.get(key) as Map<number, Map<number, MetricPoint>>;
      for (const step of [...steps.keys()].sort((a, b) => a - b)) {
        const ranks = steps.get(step) as Map<number, MetricPoint>;
        if (!final && (worldSize === undefined || ranks.size < worldSize)) continue;
        // In rank order: the mean's last bits depend on the order of the sum, and a re-run (or a
        // live follow) that saw the ranks in another order must produce the very same point.
        const byRank = [...ranks.entries()].sort((x, y) => x[0] - y[0]).map(([, p]) => p);
        out.push(...aggregate(key, step, byRank));
        steps.delete(step);
        this.done.add(`${step}\u0000${key}`);
      }
      if (steps.size === 0) this.pending.delete(key);
    }
    return out;
  }
}

export function aggregate(key: string, step: number, points: readonly MetricPoint[]): MetricPoint[] {
  const values = points.map((p) => p.value);
  const timestamp = Math.max(...points.map((p) => p.timestamp));
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return [
    { key: `${key}/mean`, value: mean, step, timestamp },
    { key: `${key}/min`, value: Math.min(...values), step, timestamp },
    { key: `${key}/max`, value: Math.max(...values), step, timestamp },
  ];
}

/** The rank key an aggregate key came from (`loss/mean` -> `loss`), for reading the parent spool. */
export function sourceKey(aggKey: string): string {
  return aggKey.slice(0, aggKey.lastIndexOf('/'));
}
