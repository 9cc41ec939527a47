// Where a figure's series went back to steps they had logged before (a restart): shaded, with a legend
// patch, so a reader knows the steps there show the latest attempt's values (latestPerStep).
import type { Plugin } from 'chart.js';
import type { MetricSeries } from '../model';
import { xBand } from './style';

const SHADE = 'rgba(255, 165, 0, 0.18)';

/** The x ranges to shade: on a step axis the repeated steps, on a time axis the gap between the last
 *  line before a restart and the first after (`time` maps a line time to the axis). Overlaps merged. */
export function repeatRanges(
  series: readonly MetricSeries[],
  time?: (ms: number) => number,
): [number, number][] {
  const ranges: [number, number][] = [];
  for (const s of series)
    for (const r of s.repeats ?? []) {
      const [a, b] = time ? [time(r.before), time(r.after)] : [r.from, r.to];
      if (Number.isFinite(a) && Number.isFinite(b) && a < b) ranges.push([a, b]);
    }
  ranges.sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

/** The shading plugins and the legend's patch (none when nothing repeated). */
export function repeatShading(
  ranges: [number, number][],
  onTime: boolean,
): { plugins: Plugin<'line'>[]; legend: object[] } {
  if (ranges.length === 0) return { plugins: [], legend: [] };
  const label = onTime ? 'restart (no lines logged)' : 'steps logged again after a restart (latest shown)';
  return {
    plugins: ranges.map(([a, b]) => xBand(a, b, SHADE)),
    legend: [{ label, data: [], backgroundColor: SHADE, borderColor: SHADE, borderWidth: 0 }],
  };
}
