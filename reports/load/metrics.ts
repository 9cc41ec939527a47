// Pure: the tracking plugin's RankSeries (one object per point) -> one column set per rank and metric key.
import type { RankSeries } from '../../tracking-plugin';
import type { MetricSeries } from '../model';

export function toMetricSeries(ranks: RankSeries[]): MetricSeries[] {
  const out: MetricSeries[] = [];
  for (const r of ranks) {
    const counts = new Map<string, number>();
    for (const p of r.points) counts.set(p.key, (counts.get(p.key) ?? 0) + 1);
    const cols = new Map<string, { s: MetricSeries; n: number }>();
    for (const [key, n] of counts) {
      const s: MetricSeries = {
        rank: r.rank,
        key,
        steps: new Float64Array(n),
        values: new Float64Array(n),
        times: new Float64Array(n),
      };
      if (r.host !== undefined) s.host = r.host;
      cols.set(key, { s, n: 0 });
      out.push(s);
    }
    for (const p of r.points) {
      const c = cols.get(p.key)!;
      c.s.steps[c.n] = p.step;
      c.s.values[c.n] = p.value;
      c.s.times[c.n] = p.timestamp;
      c.n++;
    }
  }
  return out.sort((a, b) => a.rank - b.rank || a.key.localeCompare(b.key));
}
