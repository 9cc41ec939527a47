// The stragglers page: time per logged step of each rank, its median and p95, and its final value.
import type { Figure, MetricSeries } from '../model';
import { stepSeconds, stragglerStats, type RankStats } from '../stats/stragglers';
import { rankDatasets, rankLabel } from './rank-lines';
import {
  axis,
  chartPanel,
  FIGURE,
  layout,
  legend,
  linePanel,
  MAX_RANK_LEGEND,
  rankColours,
  titleOption,
} from './style';
import { TAB10 } from './colours';

/** `stats`: stragglerStats of the key's series, when the caller has them already. */
export function stragglersFigure(all: MetricSeries[], key: string, stats?: RankStats[]): Figure {
  const series = all.filter((s) => s.key === key);
  stats ??= stragglerStats(series);
  const labels = stats.map((s) =>
    series.length > MAX_RANK_LEGEND ? String(s.rank) : rankLabel(s.rank, s.host),
  );
  // Bars in the ranks' line colours once those are by host (hue per host, shade per rank): a slow host shows.
  const byHost = series.length > TAB10.length && new Set(series.map((s) => s.host)).size > 1;
  const colours = rankColours(series);
  const bars = (fallback: string) => (byHost ? colours : fallback);
  const lines = rankDatasets(series, (s) => {
    const t = stepSeconds(s);
    return { x: t.steps, y: t.seconds };
  });
  const barOptions = (title: string, yTitle: string) => ({
    plugins: {
      legend: { ...legend(), labels: { boxWidth: 14, boxHeight: 10, font: { size: 11 } } },
      title: titleOption(title),
    },
    scales: {
      x: {
        type: 'category' as const,
        title: { display: series.length > MAX_RANK_LEGEND, text: 'rank' },
        ticks: { font: { size: 10 } },
        grid: { display: false },
      },
      y: { ...axis(yTitle), beginAtZero: true },
    },
  });
  return {
    name: 'stragglers',
    title: `Stragglers: seconds per logged step (${key} lines) and final ${key} per rank`,
    ...FIGURE,
    panels: [
      linePanel(
        layout.left(),
        'Time between logged steps',
        lines,
        { x: axis('step'), y: { ...axis('seconds per logged step'), beginAtZero: true } },
        series.length > MAX_RANK_LEGEND ? 'bottom' : 'top',
      ),
      chartPanel(layout.rightTop(), {
        type: 'bar',
        data: {
          labels,
          datasets: [
            {
              label: byHost ? 'median s/step (colour: host)' : 'median s/step',
              data: stats.map((s) => s.median),
              backgroundColor: bars('#1f77b4'),
            },
            {
              label: 'p95 s/step',
              data: stats.map((s) => s.p95),
              backgroundColor: byHost ? '#c7c7c7' : '#ff7f0e',
            },
          ],
        },
        options: barOptions('Seconds per logged step by rank', 'seconds'),
      }),
      chartPanel(layout.rightBottom(), {
        type: 'bar',
        data: {
          labels,
          datasets: [
            { label: `final ${key}`, data: stats.map((s) => s.final), backgroundColor: bars('#2ca02c') },
          ],
        },
        options: barOptions(`Final ${key} by rank`, key),
      }),
    ],
  };
}
