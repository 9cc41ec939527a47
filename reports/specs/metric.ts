// A metric page, one name across its modes: one key draws a line per rank, the min-max band and the mean;
// several keys draw each one's mean and band. Optionally smoothed, and against wall time.
import type { Figure, MetricSeries } from '../model';
import { decimate } from '../stats/lttb';
import { crossRankMean, type Column } from '../stats/mean';
import { useLogScale } from '../stats/scale';
import { emaSmooth } from '../stats/smooth';
import { toWall, type WallClock } from '../stats/wall-time';
import type { MetricGroup } from './metric-groups';
import { rankDatasets } from './rank-lines';
import { repeatRanges, repeatShading } from './repeats';
import { axis, colour, FIGURE, layout, LINE_POINTS, linePanel, lineStyle, MAX_RANK_LEGEND } from './style';

/** How metric pages are drawn: `smooth` the EMA weight (0: raw values); `clock` set: x is wall time. */
export interface MetricView {
  smooth: number;
  clock?: WallClock;
}

const BAND_GREY = 'rgba(0, 0, 0, 0.10)';

/** The band between the ranks' min and max: two datasets, the upper filled down to the lower. */
function band(x: ArrayLike<number>, c: Column, at: number, fillColour: string, label: string) {
  const edge = { ...lineStyle(fillColour, 0), borderWidth: 0, order: 10 };
  return [
    { ...edge, label: '', data: decimate(x, c.min, LINE_POINTS) },
    { ...edge, label, data: decimate(x, c.max, LINE_POINTS), fill: at, backgroundColor: fillColour },
  ];
}

const translucent = (hex: string, alpha: number) =>
  `rgba(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')}, ${alpha})`;

export function metricFigure(all: MetricSeries[], group: MetricGroup, view: MetricView): Figure {
  const members = new Set(group.keys);
  const raw = all.filter((s) => members.has(s.key));
  // smoothed copies: the loaded columns stay raw
  const series = view.smooth > 0 ? raw.map((s) => ({ ...s, values: emaSmooth(s.values, view.smooth) })) : raw;
  const xOf = (steps: Float64Array, times: Float64Array) => (view.clock ? toWall(times, view.clock) : steps);
  const log = useLogScale(series.map((s) => s.values));
  const ranks = new Set(series.map((s) => s.rank)).size;
  const hosts = new Set(series.map((s) => s.host).filter((h) => h !== undefined)).size;
  const datasets: object[] = [];
  if (group.keys.length === 1) {
    const mean = crossRankMean(series);
    const x = xOf(mean.steps, mean.times);
    datasets.push(...rankDatasets(series, (s) => ({ x: xOf(s.steps, s.times), y: s.values })));
    if (ranks > 1) datasets.push(...band(x, mean, datasets.length, BAND_GREY, 'min-max over ranks'));
    datasets.push({
      label: 'mean over ranks',
      data: decimate(x, mean.values, LINE_POINTS),
      ...lineStyle('#000000', 2.2),
      borderDash: [6, 4],
      order: -1, // drawn on top
    });
  } else {
    group.keys.forEach((key, i) => {
      const mean = crossRankMean(series.filter((s) => s.key === key));
      const x = xOf(mean.steps, mean.times);
      const c = colour(i, group.keys.length);
      if (ranks > 1) datasets.push(...band(x, mean, datasets.length, translucent(c, 0.18), ''));
      datasets.push({ label: key, data: decimate(x, mean.values, LINE_POINTS), ...lineStyle(c, 2) });
    });
  }
  const clock = view.clock;
  const repeats = repeatShading(
    repeatRanges(raw, clock && ((t) => (t - clock.t0) / clock.unitMs)),
    clock !== undefined,
  );
  datasets.push(...repeats.legend);
  const what = group.keys.length === 1 ? group.keys[0] : group.name;
  const how = [
    group.keys.length > 1 ? `mean over ranks${ranks > 1 ? ', shaded from min to max' : ''}` : '',
    view.smooth > 0 ? `EMA smoothing ${view.smooth}` : '',
  ].filter((t) => t !== '');
  const place = `${ranks} rank${ranks === 1 ? '' : 's'} on ${hosts} host${hosts === 1 ? '' : 's'}`;
  return {
    // the file name (made safe and unique by reportFigures): `loss` for the loss, `metric-<name>` else
    name: group.name === 'loss' ? 'loss' : `metric-${group.name}`,
    title:
      group.keys.length === 1 ? `${what} per rank: ${place}` : `${what}: ${group.keys.join(', ')} (${place})`,
    ...FIGURE,
    panels: [
      linePanel(
        layout.full(),
        `${what} against ${view.clock ? 'wall time' : 'step'}${how.length ? ` (${how.join('; ')})` : ''}`,
        datasets,
        { x: axis(view.clock ? view.clock.title : 'step'), y: axis(what, log ? 'logarithmic' : 'linear') },
        raw.length > MAX_RANK_LEGEND && group.keys.length === 1 ? 'right' : 'top',
        repeats.plugins,
      ),
    ],
  };
}
