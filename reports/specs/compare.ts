// Comparison: several jobs' cross-rank mean of one metric on one chart, against step and against wall time.
import * as path from 'path';
import type { Figure, ReportData } from '../model';
import { decimate } from '../stats/lttb';
import { crossRankMean } from '../stats/mean';
import { useLogScale } from '../stats/scale';
import { axis, colour, FIGURE, layout, LINE_POINTS, linePanel, lineStyle } from './style';

function jobLabel(d: ReportData): string {
  const job = d.job;
  // An array task (`train 123_2`) is told apart from its siblings by its parameters, when it has any.
  const params = job?.array_task ? Object.entries(job.spec?.params ?? {}).map(([k, v]) => `${k}=${v}`) : [];
  const name = job
    ? `${job.name}${job.job_id ? ` ${job.job_id}` : ''}${params.length ? ` ${params.join(' ')}` : ''}`
    : path.basename(d.runDir);
  const spec = job?.spec;
  const ranks = new Set(d.metrics.map((m) => m.rank)).size;
  return spec
    ? `${name} (${spec.nodes} node${spec.nodes === 1 ? '' : 's'}, ${spec.world_size} ranks)`
    : `${name} (${ranks} ranks)`;
}

export function compareFigure(runs: ReportData[], key = 'loss'): Figure {
  const means = runs.map((d) => crossRankMean(d.metrics.filter((m) => m.key === key)));
  const log = useLogScale(means.map((m) => m.values));
  const lines = (x: (i: number) => Float64Array) =>
    runs.map((d, i) => ({
      label: jobLabel(d),
      data: decimate(x(i), means[i].values, LINE_POINTS),
      ...lineStyle(colour(i, runs.length), 1.8),
    }));
  // Wall time from each job's first logged step, so jobs that ran at different times line up.
  const wall = (i: number) => {
    const t = means[i].times;
    const t0 = t.reduce((a, b) => (Number.isFinite(b) && b < a ? b : a), Infinity);
    return t.map((v) => (v - t0) / 1000);
  };
  const y = axis(`${key} (mean over ranks)`, log ? 'logarithmic' : 'linear');
  return {
    name: 'compare',
    title: `Comparison of ${runs.length} jobs: ${key}`,
    ...FIGURE,
    panels: [
      linePanel(
        layout.left(),
        `${key} against step`,
        lines((i) => means[i].steps),
        { x: axis('step'), y },
        'bottom',
      ),
      linePanel(
        layout.right(),
        `${key} against wall time`,
        lines(wall),
        { x: axis('seconds since the first logged step'), y },
        'bottom',
      ),
    ],
  };
}
