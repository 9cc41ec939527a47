// The stragglers page: time per logged step of each rank, its median and p95, its final value, and the
// CPU seconds of each rank's command where the rank facts have them.
import type { Figure, MetricSeries } from '../model';
import {
  CPU_STANDS_OUT,
  cpuStandingOut,
  stepSeconds,
  stragglerStats,
  type RankCpu,
  type RankStats,
} from '../stats/stragglers';
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

/** `stats`: stragglerStats of the key's series, when the caller has them already; `cpu`: cpuStats of
 *  the rank facts (a panel of their own when any rank of the key has them). */
export function stragglersFigure(
  all: MetricSeries[],
  key: string,
  stats?: RankStats[],
  cpu: RankCpu[] = [],
): Figure {
  const series = all.filter((s) => s.key === key);
  stats ??= stragglerStats(series);
  const cpuOf = new Map(cpu.map((c) => [c.rank, c.cpu]));
  const withCpu = stats.some((s) => cpuOf.has(s.rank));
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
    title: `Stragglers: seconds per logged step (${key} lines)${withCpu ? ', CPU seconds' : ''} and final ${key} per rank`,
    ...FIGURE,
    panels: [
      linePanel(
        withCpu ? layout.leftTop() : layout.left(),
        'Time between logged steps',
        lines,
        { x: axis('step'), y: { ...axis('seconds per logged step'), beginAtZero: true } },
        series.length > MAX_RANK_LEGEND ? 'bottom' : 'top',
      ),
      ...(withCpu ? [cpuPanel(stats, cpu, cpuOf, labels, bars('#9467bd'), barOptions)] : []),
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

/** CPU seconds of each rank's command, titled with the rank that stands out by them, if one does. */
function cpuPanel(
  stats: RankStats[],
  cpu: RankCpu[],
  cpuOf: Map<number, number>,
  labels: string[],
  colours: string | string[],
  barOptions: (title: string, yTitle: string) => object,
) {
  const busy = cpuStandingOut(cpu);
  const verdict = busy
    ? `rank ${busy.rank} used ${busy.relative.toFixed(1)}x the median rank's`
    : cpu.length >= 2
      ? `none over ${CPU_STANDS_OUT}x the median rank's`
      : 'one rank measured';
  return chartPanel(layout.leftBottom(), {
    type: 'bar',
    data: {
      labels,
      datasets: [
        {
          label: "CPU s of the rank's command",
          data: stats.map((s) => cpuOf.get(s.rank) ?? NaN),
          backgroundColor: colours,
        },
      ],
    },
    options: barOptions(`CPU seconds by rank: ${verdict}`, 'CPU seconds'),
  });
}
