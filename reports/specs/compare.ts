// Comparison: several jobs' cross-rank mean of one metric on one chart, against step and against wall time.
import * as path from 'path';
import type { Figure, ReportData } from '../model';
import { decimate } from '../stats/lttb';
import { crossRankMean } from '../stats/mean';
import { useLogScale } from '../stats/scale';
import { repeatRanges, repeatShading } from './repeats';
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
  const ofKey = runs.map((d) => d.metrics.filter((m) => m.key === key));
  const means = ofKey.map((series) => crossRankMean(series));
  const log = useLogScale(means.map((m) => m.values));
  const lines = (x: (i: number) => Float64Array, shading: object[]) => [
    ...runs.map((d, i) => ({
      label: jobLabel(d),
      data: decimate(x(i), means[i].values, LINE_POINTS),
      ...lineStyle(colour(i, runs.length), 1.8),
    })),
    ...shading,
  ];
  // Wall time from each job's first logged step, so jobs that ran at different times line up.
  const t0s = means.map((m) => m.times.reduce((a, b) => (Number.isFinite(b) && b < a ? b : a), Infinity));
  const wall = (i: number) => means[i].times.map((v) => (v - t0s[i]) / 1000);
  // Each job's restarts: the steps logged again, and on the time axis the gap in that job's lines.
  const onSteps = repeatShading(repeatRanges(ofKey.flat()), false);
  const onTime = repeatShading(
    ofKey.flatMap((series, i) => repeatRanges(series, (t) => (t - t0s[i]) / 1000)),
    true,
  );
  const y = axis(`${key} (mean over ranks)`, log ? 'logarithmic' : 'linear');
  return {
    name: 'compare',
    title: `Comparison of ${runs.length} jobs: ${key}`,
    ...FIGURE,
    panels: [
      linePanel(
        layout.left(),
        `${key} against step`,
        lines((i) => means[i].steps, onSteps.legend),
        { x: axis('step'), y },
        'bottom',
        onSteps.plugins,
      ),
      linePanel(
        layout.right(),
        `${key} against wall time`,
        lines(wall, onTime.legend),
        { x: axis('seconds since the first logged step'), y },
        'bottom',
        onTime.plugins,
      ),
    ],
  };
}
