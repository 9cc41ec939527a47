// Per-step mean, min and max across ranks for the parent run (pure). While the job runs, a (key, step)
// is aggregated once every rank reported it; the timestamp is the latest of the ranks' own, so a re-run
// computes identical points (and MLflow drops the re-sent ones). A step a rank logs again after that
// (a requeue that repeats steps, a line logged twice) is counted; at the end, settle() aggregates every
// step from each rank's latest point (latestPerStep) and gives what differs from the parent's last.
import type { PointColumns } from '../logs/columns';
import { latestPerStep } from '../steps';
import type { MetricPoint } from '../types';

export class Aggregator {
  /** key -> step -> rank -> the last point that rank logged for that (key, step). */
  private readonly pending = new Map<string, Map<number, Map<number, MetricPoint>>>();
  private readonly done = new Set<string>();

  /** `repeated`: points of aggregated steps counted at the last commit (SpoolState parent.repeated). */
  constructor(private repeated = 0) {}

  /** (key, step) pairs some rank reported that are not aggregated yet. */
  get pendingCount(): number {
    let n = 0;
    for (const steps of this.pending.values()) n += steps.size;
    return n;
  }

  /** Points that came for an already aggregated (key, step): settle() must run at the end. */
  get repeatedCount(): number {
    return this.repeated;
  }

  /** Mark (key, step) as already aggregated (read back from the parent spool). */
  markDone(key: string, step: number): void {
    this.done.add(`${step}\u0000${key}`);
    this.pending.get(key)?.delete(step);
  }

  /** A point read back from a rank spool: pending again if its step is not aggregated (repeats are
   *  already counted in `repeated`). */
  restore(rank: number, p: MetricPoint): void {
    if (!this.done.has(`${p.step}\u0000${p.key}`))
      this.addPoint(rank, p.key, p.value, p.step, p.timestamp, p);
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
    if (this.done.has(`${step}\u0000${key}`)) {
      this.repeated++;
      return;
    }
    let steps = this.pending.get(key);
    if (!steps) this.pending.set(key, (steps = new Map()));
    let ranks = steps.get(step);
    if (!ranks) steps.set(step, (ranks = new Map()));
    ranks.set(rank, p ?? { key, value, step, timestamp }); // the last line of a step wins
  }

  /** Aggregates of the steps every rank reported, ordered by key, step (the rest waits for settle()). */
  take(worldSize: number | undefined): MetricPoint[] {
    const out: MetricPoint[] = [];
    if (worldSize === undefined) return out;
    for (const key of [...this.pending.keys()].sort()) {
      const steps = this.pending.get(key) as Map<number, Map<number, MetricPoint>>;
      for (const step of [...steps.keys()].sort((a, b) => a - b)) {
        const ranks = steps.get(step) as Map<number, MetricPoint>;
        if (ranks.size < worldSize) continue;
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

/** One rank's points of one key, in log order, as settle() reads them from the rank spools. */
export interface KeySeries {
  steps: number[];
  values: number[];
  times: number[];
}

/** The aggregates of every step from the ranks' latest points (with the ranks that logged the step),
 *  those that differ from the parent's last aggregate of that step (`last`: `K/mean` etc. -> step ->
 *  value), ordered by key, step. A pure function of the spools: a re-run gives the same points. */
export function settle(
  ranks: ReadonlyMap<number, ReadonlyMap<string, KeySeries>>,
  last: ReadonlyMap<string, ReadonlyMap<number, number>>,
): MetricPoint[] {
  const byKey = new Map<string, Map<number, MetricPoint[]>>();
  for (const rank of [...ranks.keys()].sort((a, b) => a - b)) {
    for (const [key, s] of ranks.get(rank) as ReadonlyMap<string, KeySeries>) {
      const l = latestPerStep(
        Float64Array.from(s.steps),
        Float64Array.from(s.values),
        Float64Array.from(s.times),
      );
      let steps = byKey.get(key);
      if (!steps) byKey.set(key, (steps = new Map()));
      for (let i = 0; i < l.steps.length; i++) {
        const p = { key, value: l.values[i], step: l.steps[i], timestamp: l.times[i] };
        const at = steps.get(p.step);
        if (at) at.push(p);
        else steps.set(p.step, [p]);
      }
    }
  }
  const out: MetricPoint[] = [];
  for (const key of [...byKey.keys()].sort()) {
    const steps = byKey.get(key) as Map<number, MetricPoint[]>;
    for (const step of [...steps.keys()].sort(byStep)) {
      const agg = aggregate(key, step, steps.get(step) as MetricPoint[]);
      if (agg.some((p) => !Object.is(last.get(p.key)?.get(step), p.value))) out.push(...agg);
    }
  }
  return out;
}

/** Steps ascending, a NaN step last (as latestPerStep orders them). */
const byStep = (a: number, b: number) => (a !== a ? 1 : b !== b ? -1 : a - b);

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
