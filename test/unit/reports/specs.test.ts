// Chart specs from the committed polynomial run (3 gloo ranks, 1000 epochs, loss every 10): no rendering.
import { loadReportData } from '../../../reports/load/run-dir';
import { toMetricSeries } from '../../../reports/load/metrics';
import { PointColumns } from '../../../tracking-plugin/logs/columns';
import { metricKeys } from '../../../reports/specs/metric-groups';
import type { Figure, Panel, ReportData } from '../../../reports/model';
import { compareFigure } from '../../../reports/specs/compare';
import { reportFigures } from '../../../reports/specs/figures';
import { formatDuration, summaryRows } from '../../../reports/specs/summary';
import { syntheticReportData } from '../../../bench/synthetic-report';
import { POLYNOMIAL_1, POLYNOMIAL_3, FIXTURE_HOST } from './helpers/check-output';

type ChartPanel = Extract<Panel, { kind: 'chart' }>;
const charts = (f: Figure) => f.panels.filter((p): p is ChartPanel => p.kind === 'chart');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const opts = (p: ChartPanel) => p.config.options as any;
const labels = (p: ChartPanel) => p.config.data.datasets.map((d) => d.label);

let data: ReportData;
beforeAll(async () => {
  data = await loadReportData(POLYNOMIAL_3);
});

describe('the polynomial run', () => {
  it('reads 3 ranks of 100 loss points with host, time and the evaluation data', () => {
    expect(data.metrics.map((m) => [m.rank, m.key, m.steps.length, m.host])).toEqual([
      [0, 'loss', 100, FIXTURE_HOST],
      [1, 'loss', 100, FIXTURE_HOST],
      [2, 'loss', 100, FIXTURE_HOST],
    ]);
    expect(data.metrics[0].steps[99]).toBe(990);
    expect(data.metrics[0].times[1]).toBeGreaterThan(data.metrics[0].times[0]);
    expect(data.evaluation?.x.length).toBe(201);
    expect(data.facts.map((f) => f.rank)).toEqual([0, 1, 2]);
  });

  it('has the pages summary, loss, evaluation, stragglers; the only note: no resource samples', () => {
    const { figures, notes } = reportFigures(data);
    expect(figures.map((f) => f.name)).toEqual(['summary', 'loss', 'evaluation', 'stragglers']);
    expect(notes).toEqual([expect.stringMatching(/^No resource samples in .*: no resource pages/)]); // made by torch directly, not through the sampler
  });

  it('draws loss on a log axis, one line per rank labelled with its host, and the mean', () => {
    const loss = charts(reportFigures(data).figures[1])[0];
    expect(opts(loss).scales.y.type).toBe('logarithmic');
    expect(opts(loss).scales.y.title.text).toBe('loss (log scale)');
    expect(opts(loss).scales.x).toMatchObject({ type: 'linear', title: { text: 'step' } });
    expect(labels(loss).filter((l) => l !== '')).toEqual([
      `rank 0 (${FIXTURE_HOST})`,
      `rank 1 (${FIXTURE_HOST})`,
      `rank 2 (${FIXTURE_HOST})`,
      'min-max over ranks',
      'mean over ranks',
    ]);
    expect(opts(loss).parsing).toBe(false); // LTTB'd {x, y} points, as chart.js's fast path needs
    for (const d of loss.config.data.datasets) expect((d as { pointRadius?: number }).pointRadius).toBe(0);
  });

  it('draws the evaluation like the seed: f, g, samples and shaded training range; |f - g| on the right', () => {
    const [left, right] = charts(reportFigures(data).figures[2]);
    expect(labels(left)).toEqual([
      'Sample space (training range)',
      'Function f(x)',
      'Model output g(x)',
      'Training samples',
    ]);
    expect(opts(left).plugins.title.text).toBe('1000 epochs of training');
    expect(labels(right)).toEqual(['Error |f(x)-g(x)|']);
    expect(left.config.plugins?.map((p) => p.id)).toEqual(['xBand']);
    const err = right.config.data.datasets[0].data as { x: number; y: number }[];
    const e = data.evaluation!;
    expect(err[10]).toEqual({ x: e.x[10], y: Math.abs(e.f[10] - e.g[10]) });
  });

  it('summarises the job', () => {
    const rows = Object.fromEntries(summaryRows(data));
    expect(rows.Hosts).toBeUndefined(); // said once, under Nodes
    expect(rows).toMatchObject({
      Nodes: `1 node: ${FIXTURE_HOST}`,
      'Run directory': POLYNOMIAL_3,
      Cluster: 'local',
      MLflow: 'no MLflow run recorded for this run directory',
      Ranks: '3 (world size 3, 3 per node, 0 GPUs per node)',
      Backend: 'gloo',
      Launcher: 'torchrun (ranks started by local)',
      'Final state': 'COMPLETED, exit code 0',
    });
    expect(rows.Master).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(rows['Final loss']).toMatch(/^mean \S+ over 3 ranks \(min \S+, max \S+\)$/);
    expect(rows.Duration).toMatch(/^\d+s$/);
    // a DDP job: the gradient all-reduce keeps the ranks in step, so no rank's step times stand out
    expect(rows['Slowest rank']).toMatch(
      /^none stands out in step time \(every rank within 5 % of the median rank's; under DDP .*\) and no CPU time per rank is recorded yet/,
    );
  });
});

describe('without evaluation data', () => {
  it('skips the evaluation page and says how a script writes eval/evaluation.json', () => {
    const { evaluation: _none, ...rest } = data;
    const { figures, notes } = reportFigures(rest);
    expect(figures.map((f) => f.name)).toEqual(['summary', 'loss', 'stragglers']);
    expect(notes.join('\n')).toMatch(/TRACK_LAUNCH_RUN_DIR\/eval\/evaluation\.json/);
    expect(figures[0].panels.find((p) => p.kind === 'note')).toBeDefined();
  });
});

describe('many ranks', () => {
  it('colours by host and lists each host once in the legend', () => {
    const d = syntheticReportData({ ranks: 32, points: 50 });
    const loss = charts(reportFigures(d).figures[1])[0];
    const shown = labels(loss).filter((l) => l !== '');
    expect(shown).toEqual([
      'node001 (8 ranks: 0-7)',
      'node002 (8 ranks: 8-15)',
      'node003 (8 ranks: 16-23)',
      'node004 (8 ranks: 24-31)',
      'min-max over ranks',
      'mean over ranks',
    ]);
    expect(opts(loss).plugins.legend.labels.filter({ text: '' })).toBe(false);
  });

  it('names the slow host in the summary', () => {
    const rows = Object.fromEntries(summaryRows(syntheticReportData({ ranks: 16, points: 200 })));
    expect(rows['Slowest rank']).toMatch(
      /^rank \d+ \(node002\): median \S+ s per logged step, 1\.\d\dx the median rank$/,
    );
  });

  it('says no rank stands out when every rank logs at one pace, and nothing for a single rank', () => {
    // one host of 16 ranks: no slow host, the same pace give or take 10 % noise per step
    const even = Object.fromEntries(
      summaryRows(syntheticReportData({ ranks: 16, points: 200, ranksPerHost: 16 })),
    );
    expect(even['Slowest rank']).toMatch(/^none stands out/);
    const one = Object.fromEntries(
      summaryRows(syntheticReportData({ ranks: 1, points: 200, ranksPerHost: 1 })),
    );
    expect(one['Slowest rank']).toBeUndefined();
  });
});

describe('comparison', () => {
  it('puts each job on both charts, against step and against wall time', async () => {
    const one = await loadReportData(POLYNOMIAL_1);
    const fig = compareFigure([one, data]);
    const [byStep, byTime] = charts(fig);
    expect(labels(byStep)).toEqual([
      expect.stringMatching(/^polynomial local-\d+ \(1 node, 1 ranks\)$/),
      expect.stringMatching(/\(1 node, 3 ranks\)$/),
    ]);
    expect(labels(byTime)).toEqual(labels(byStep));
    expect(opts(byTime).scales.x.title.text).toBe('seconds since the first logged step');
    const first = (byTime.config.data.datasets[0].data as { x: number }[])[0];
    expect(first.x).toBe(0);
  });
});

describe('helpers', () => {
  it('orders metric keys with loss first, then other loss-like names', () => {
    const points = ['acc', 'loss', 'lr', 'nll'].map((key, i) => ({ key, value: 1, step: i, timestamp: 0 }));
    const m = toMetricSeries([{ rank: 0, columns: PointColumns.from(points), points, skipped: 0 }]);
    expect(metricKeys(m)).toEqual(['loss', 'nll', 'acc', 'lr']);
  });

  it('formats durations', () => {
    expect([formatDuration(7.4), formatDuration(62), formatDuration(3723), formatDuration(NaN)]).toEqual([
      '7s',
      '1m 02s',
      '1h 02m 03s',
      'unknown',
    ]);
  });
});
