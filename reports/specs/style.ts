// Shared look of every chart: colours, line options that keep big series fast, axis and legend helpers.
import type { ChartConfiguration, Plugin } from 'chart.js';
import type { Box, Panel } from '../model';
import { formatLogTick, logTicks } from '../stats/log-ticks';

export const FIGURE = { width: 1000, height: 560 } as const;
/** Points per drawn line after LTTB: about one per device pixel of a full-width chart. */
export const LINE_POINTS = 1000;
/** Above this many ranks the legend lists hosts, not ranks, and lines are coloured by host. */
export const MAX_RANK_LEGEND = 16;
/** Above this many hosts (and MAX_RANK_LEGEND ranks) the legend names only the hosts that stand out. */
export const MAX_HOST_LEGEND = 8;
/** Points per rank's line above MAX_RANK_LEGEND ranks: those lines lie on top of each other, a host's in one
 *  colour, and make a band that half the points draw as well; other lines keep LINE_POINTS. */
export const MANY_RANK_POINTS = 500;

export { colour, rankColours } from './colours';

/** Dataset options for a long line: no point markers, thin stroke, round joins (a miter join at a noisy
 *  line's sharp turns draws spikes past the data). */
export const lineStyle = (color: string, width = 1.2) => ({
  borderColor: color,
  backgroundColor: color,
  borderWidth: width,
  borderJoinStyle: 'round' as const,
  pointRadius: 0,
  pointHitRadius: 0,
  fill: false,
  tension: 0,
  spanGaps: true,
  pointStyle: 'line' as const,
});

export const axis = (title: string, type: 'linear' | 'logarithmic' = 'linear') => ({
  type,
  title: { display: true, text: type === 'logarithmic' ? `${title} (log scale)` : title, font: { size: 13 } },
  grid: { color: '#e6e6e6' },
  ...(type === 'logarithmic' ? logTickOptions : {}),
});

/** A log axis ticked at 1, 2 and 5 per decade with short labels (stats/log-ticks.ts). */
const logTickOptions = {
  afterBuildTicks: (scale: { min: number; max: number; ticks: { value: number }[] }) => {
    scale.ticks = logTicks(scale.min, scale.max).map((value) => ({ value }));
  },
  ticks: { autoSkip: false, callback: (value: number | string) => formatLogTick(Number(value)) },
};

export const titleOption = (text: string) => ({
  display: true,
  text,
  font: { size: 14, weight: 'bold' as const },
});

/** Legend that hides datasets whose label is empty (used to list one entry per host). */
export const legend = (position: 'top' | 'right' | 'bottom' = 'top') => ({
  display: true,
  position,
  labels: {
    boxWidth: 14,
    boxHeight: 2,
    font: { size: 11 },
    filter: (item: { text: string }) => item.text !== '',
  },
});

/** A shaded band between two x values, behind the data (the seed's axvspan of the training range). */
export function xBand(from: number, to: number, color: string): Plugin<'line'> {
  return {
    id: 'xBand',
    beforeDatasetsDraw(chart) {
      const { ctx, chartArea, scales } = chart;
      const x0 = Math.max(chartArea.left, scales.x.getPixelForValue(from));
      const x1 = Math.min(chartArea.right, scales.x.getPixelForValue(to));
      if (x1 <= x0) return;
      ctx.save();
      ctx.fillStyle = color;
      ctx.fillRect(x0, chartArea.top, x1 - x0, chartArea.bottom - chartArea.top);
      ctx.restore();
    },
  };
}

/** A chart panel; chart.js's per-type configuration types are erased here so figures can mix them. */
export function chartPanel<T extends 'line' | 'bar'>(box: Box, config: ChartConfiguration<T>): Panel {
  // Lines carry ready {x, y} points (parsing off, as LTTB needs); bars keep chart.js's label + number form.
  const common = {
    parsing: config.type !== 'line',
    normalized: true,
    animation: false,
    responsive: false,
    maintainAspectRatio: false,
  };
  const options = { ...common, ...config.options };
  return { kind: 'chart', box, config: { ...config, options } as unknown as ChartConfiguration };
}

/** A line chart panel with the usual legend (at `legendAt`) and title. */
export const linePanel = (
  box: Box,
  title: string,
  datasets: object[],
  scales: { x: object; y: object },
  legendAt: 'top' | 'right' | 'bottom' = 'top',
  plugins: Plugin<'line'>[] = [],
): Panel =>
  chartPanel(box, {
    type: 'line',
    data: { datasets } as never,
    options: { plugins: { legend: legend(legendAt), title: titleOption(title) }, scales },
    ...(plugins.length ? { plugins } : {}),
  });

/** A box in the left or right half of a page, `y` down from its top. */
const halfBox = (side: 'left' | 'right', y: number, h: number): Box => ({
  x: side === 'left' ? 16 : FIGURE.width / 2 + 8,
  y,
  w: FIGURE.width / 2 - 24,
  h,
});

/** Boxes of the usual layouts under the figure title. */
export const layout = {
  full: (): Box => ({ x: 16, y: 48, w: FIGURE.width - 32, h: FIGURE.height - 60 }),
  left: () => halfBox('left', 48, FIGURE.height - 60),
  leftTop: () => halfBox('left', 48, (FIGURE.height - 72) / 2),
  leftBottom: () => halfBox('left', 60 + (FIGURE.height - 72) / 2, (FIGURE.height - 72) / 2),
  right: () => halfBox('right', 48, FIGURE.height - 60),
  rightTop: () => halfBox('right', 48, (FIGURE.height - 72) / 2),
  rightBottom: () => halfBox('right', 60 + (FIGURE.height - 72) / 2, (FIGURE.height - 72) / 2),
};
