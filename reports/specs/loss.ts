// Figure 1: one metric per rank against step, with the cross-rank mean; log scale when it spans decades.
import type { Figure, MetricSeries } from '../model';
import { decimate } from '../stats/lttb';
import { crossRankMean } from '../stats/mean';
import { useLogScale } from '../stats/scale';
import {
  axis,
  chartPanel,
  colour,
  FIGURE,
  layout,
  legend,
  LINE_POINTS,
  lineStyle,
  MANY_RANK_POINTS,
  MAX_RANK_LEGEND,
  titleOption,
} from './style';

export const rankLabel = (rank: number, host?: string) => (host ? `rank ${rank} (${host})` : `rank ${rank}`);

/**
 * Datasets, one per rank. With many ranks lines are coloured by host and the legend lists each host once;
 * then each line has MANY_RANK_POINTS, not LINE_POINTS.
 */
export function rankDatasets(
  series: MetricSeries[],
  y: (s: MetricSeries) => { x: ArrayLike<number>; y: ArrayLike<number> },
) {
  const byHost = series.length > MAX_RANK_LEGEND;
  const points = byHost ? MANY_RANK_POINTS : LINE_POINTS;
  const hosts = [...new Set(series.map((s) => s.host ?? '?'))];
  const seen = new Set<string>();
  return series.map((s, i) => {
    const host = s.host ?? '?';
    const colourIndex = byHost ? hosts.indexOf(host) : i;
    let label = rankLabel(s.rank, s.host);
    if (byHost) {
      const ranks = series.filter((o) => (o.host ?? '?') === host).map((o) => o.rank);
      label = seen.has(host)
        ? ''
        : `${host} (${ranks.length} ranks: ${Math.min(...ranks)}-${Math.max(...ranks)})`;
      seen.add(host);
    }
    const { x, y: yy } = y(s);
    return {
      label,
      data: decimate(x, yy, points),
      ...lineStyle(colour(colourIndex, byHost ? hosts.length : series.length)),
    };
  });
}

export function lossFigure(all: MetricSeries[], key: string): Figure {
  const series = all.filter((s) => s.key === key);
  const mean = crossRankMean(series);
  const log = useLogScale(series.map((s) => s.values));
  const datasets = [
    ...rankDatasets(series, (s) => ({ x: s.steps, y: s.values })),
    {
      label: 'mean over ranks',
      data: decimate(mean.steps, mean.values, LINE_POINTS),
      ...lineStyle('#000000', 2.2),
      borderDash: [6, 4],
      order: -1,
    }, // drawn on top
  ];
  const hosts = new Set(series.map((s) => s.host).filter((h) => h !== undefined)).size;
  return {
    name: key === 'loss' ? 'loss' : `metric-${key.replace(/[^A-Za-z0-9_.-]/g, '_')}`,
    title: `${key} per rank: ${series.length} ranks on ${hosts} host${hosts === 1 ? '' : 's'}`,
    ...FIGURE,
    panels: [
      chartPanel(layout.full(), {
        type: 'line',
        data: { datasets },
        options: {
          plugins: {
            legend: legend(series.length > MAX_RANK_LEGEND ? 'right' : 'top'),
            title: titleOption(`${key} against step`),
          },
          scales: { x: axis('step'), y: axis(key, log ? 'logarithmic' : 'linear') },
        },
      }),
    ],
  };
}
