// Pure: the tracking plugin's RankSeries (points as columns) -> one column set per rank and metric key,
// a step logged twice reduced to its last line (the tracking plugin's latestPerStep, the parent's rule).
import { latestPerStep, type RankSeries } from '../../tracking-plugin';
import type { MetricSeries } from '../model';

export function toMetricSeries(ranks: RankSeries[]): MetricSeries[] {
  const out: MetricSeries[] = [];
  for (const r of ranks) {
    const c = r.columns;
    const counts = new Int32Array(c.keys.length); // by key id
    for (let i = 0; i < c.length; i++) counts[c.keyIds[i]]++;
    const byId: (MetricSeries | undefined)[] = new Array<MetricSeries | undefined>(c.keys.length);
    for (let id = 0; id < counts.length; id++) {
      const n = counts[id];
      if (n === 0) continue;
      const s: MetricSeries = {
        rank: r.rank,
        key: c.keys[id],
        steps: new Float64Array(n),
        values: new Float64Array(n),
        times: new Float64Array(n),
      };
      if (r.host !== undefined) s.host = r.host;
      byId[id] = s;
      out.push(s);
    }
    const filled = new Int32Array(c.keys.length);
    for (let i = 0; i < c.length; i++) {
      const id = c.keyIds[i];
      const s = byId[id] as MetricSeries;
      const k = filled[id]++;
      s.steps[k] = c.steps[i];
      s.values[k] = c.values[i];
      s.times[k] = c.timestamps[i];
    }
  }
  for (const s of out) {
    const latest = latestPerStep(s.steps, s.values, s.times);
    [s.steps, s.values, s.times] = [latest.steps, latest.values, latest.times];
    if (latest.repeats.length) s.repeats = latest.repeats;
  }
  return out.sort((a, b) => a.rank - b.rank || a.key.localeCompare(b.key));
}
