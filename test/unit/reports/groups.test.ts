// Metric pages: grouped by name across modes (LUNA's `<mode>/<metric>` keys), loss-like first, capped with the
// rest listed; the stragglers key; colours by host; smoothing and wall time on the page.
import type { Figure, MetricSeries, Panel } from '../../../reports/model';
import { reportFigures } from '../../../reports/specs/figures';
import { MAX_METRIC_CHARTS } from '../../../reports/specs/metric-groups';
import { metricGroups, splitKey, stragglerKey } from '../../../reports/specs/metric-groups';
import { rankColours } from '../../../reports/specs/colours';
import { syntheticReportData } from '../../../bench/synthetic-report';

type ChartPanel = Extract<Panel, { kind: 'chart' }>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const chart = (f: Figure) => f.panels.find((p): p is ChartPanel => p.kind === 'chart')! as any;

const LUNA_KEYS = [
  'trn/auc',
  'trn/correct',
  'trn/f1',
  'trn/loss',
  'trn_neg/correct',
  'trn_neg/loss',
  'val/correct',
  'val/loss',
  'val_pos/loss',
];

/** A synthetic run (3 ranks on one host) whose `loss` is copied to each of `keys`, `points` lines each. */
function runWith(keys: string[], points = 40, ranks = 3) {
  const d = syntheticReportData({ ranks, points, ranksPerHost: 8 });
  d.metrics = d.metrics.flatMap((s) =>
    keys.map((key, i): MetricSeries => ({ ...s, key, values: s.values.map((v) => v * (i + 1)) })),
  );
  return d;
}

describe('grouping', () => {
  it('splits a key at its mode prefix', () => {
    expect(splitKey('trn_neg/loss')).toEqual({ mode: 'trn_neg', name: 'loss' });
    expect(splitKey('loss')).toEqual({ mode: '', name: 'loss' });
    expect(splitKey('/odd')).toEqual({ mode: '', name: '/odd' });
  });

  it('puts every mode of a name on one chart, loss first, training modes first', () => {
    expect(metricGroups(LUNA_KEYS)).toEqual([
      { name: 'loss', keys: ['trn/loss', 'trn_neg/loss', 'val/loss', 'val_pos/loss'] },
      { name: 'auc', keys: ['trn/auc'] },
      { name: 'correct', keys: ['trn/correct', 'trn_neg/correct', 'val/correct'] },
      { name: 'f1', keys: ['trn/f1'] },
    ]);
    expect(metricGroups(['acc', 'val_loss', 'lr', 'loss', 'mse']).map((g) => g.name)).toEqual([
      'loss',
      'mse',
      'val_loss',
      'acc',
      'lr',
    ]);
  });

  it('draws trn/loss and val/loss on one page, each with its mean and band', () => {
    const { figures } = reportFigures(runWith(LUNA_KEYS));
    expect(figures.map((f) => f.name)).toEqual([
      'summary',
      'loss',
      'metric-auc',
      'metric-correct',
      'metric-f1',
      'stragglers',
    ]);
    const labels = chart(figures[1]).config.data.datasets.map((d: { label: string }) => d.label);
    expect(labels.filter((l: string) => l !== '')).toEqual([
      'trn/loss',
      'trn_neg/loss',
      'val/loss',
      'val_pos/loss',
    ]);
    // per key: the band's lower edge, its upper edge filled down to that lower edge, the mean
    const ds = chart(figures[1]).config.data.datasets;
    expect(ds).toHaveLength(12);
    expect(ds[1].fill).toBe(0);
    expect(ds[4].fill).toBe(3);
  });

  it('draws up to MAX_METRIC_CHARTS charts and lists the rest by name on one page', () => {
    const keys = Array.from({ length: MAX_METRIC_CHARTS + 3 }, (_, i) => `m${String(i).padStart(2, '0')}`);
    const { figures, notes } = reportFigures(runWith(['loss', ...keys], 5));
    const metricPages = figures.filter((f) => f.name === 'loss' || f.name.startsWith('metric-'));
    expect(metricPages).toHaveLength(MAX_METRIC_CHARTS);
    const list = figures.find((f) => f.name === 'metrics-not-drawn')!;
    const lines = (list.panels[0] as Extract<Panel, { kind: 'note' }>).lines;
    expect(lines).toEqual(['m23: m23', 'm24: m24', 'm25: m25', 'm26: m26']);
    // it counts names (a chart each), as the note does, and claims nothing of MLflow
    expect(list.title).toBe(
      `4 more metric names, not drawn (a report draws at most ${MAX_METRIC_CHARTS} charts)`,
    );
    expect(list.panels[0]).toMatchObject({ title: expect.not.stringMatching(/MLflow/) });
    expect(notes.join('\n')).toContain(`${MAX_METRIC_CHARTS} drawn`);
  });
});

describe('the stragglers key', () => {
  const keyed = (keys: string[]) => runWith(keys, 5).metrics;

  it('is a loss (training mode first), never an AUC that sorts first', () => {
    expect(stragglerKey(keyed(LUNA_KEYS))).toBe('trn/loss');
    expect(stragglerKey(keyed(['a/auc', 'val/loss']))).toBe('val/loss');
  });

  it('is a step-time key without a loss, else the first key', () => {
    expect(stragglerKey(keyed(['acc', 'step_time']))).toBe('step_time');
    expect(stragglerKey(keyed(['acc', 'lr']))).toBe('acc');
    expect(stragglerKey([])).toBeUndefined();
  });

  it('titles the stragglers page with that key', () => {
    const { figures } = reportFigures(runWith(LUNA_KEYS, 5));
    expect(figures.find((f) => f.name === 'stragglers')!.title).toContain('(trn/loss lines)');
  });
});

describe('colours by host', () => {
  const hue = (hex: string) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    return Math.round((Math.atan2(Math.sqrt(3) * (g - b), 2 * r - g - b) * 180) / Math.PI);
  };

  it('gives 64 ranks on 8 hosts 8 distinct host colours, and each host`s ranks 8 shades of its hue', () => {
    const series = Array.from({ length: 64 }, (_, r) => ({ host: `node${Math.floor(r / 8)}` }));
    const colours = rankColours(series);
    const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const grey = (hex: string) => new Set(rgb(hex)).size === 1;
    for (let h = 0; h < 8; h++) {
      const shades = colours.slice(8 * h, 8 * h + 8);
      expect(new Set(shades).size).toBe(8);
      // one hue per host: all grey, or hues within a few degrees (rounding to 8 bits per channel)
      if (grey(shades[0])) expect(shades.every(grey)).toBe(true);
      else expect(Math.max(...shades.map(hue)) - Math.min(...shades.map(hue))).toBeLessThanOrEqual(4);
    }
    // the hosts' middle shades are far apart in RGB: 8 colours a reader tells apart
    const centres = Array.from({ length: 8 }, (_, h) => rgb(colours[8 * h + 4]));
    for (let i = 0; i < 8; i++)
      for (let j = i + 1; j < 8; j++)
        expect(Math.hypot(...centres[i].map((c, k) => c - centres[j][k]))).toBeGreaterThan(60);
  });

  it('keeps tab10 while the ranks fit it', () => {
    expect(rankColours([{ host: 'a' }, { host: 'b' }])).toEqual(['#1f77b4', '#ff7f0e']);
  });

  it('colours the stragglers bars by host at 64 ranks', () => {
    const { figures } = reportFigures(syntheticReportData({ ranks: 64, points: 20 }));
    const stragglers = figures.find((f) => f.name === 'stragglers')!;
    const bars = stragglers.panels[1] as ChartPanel;
    const median = bars.config.data.datasets[0] as { backgroundColor: string[] };
    expect(median.backgroundColor).toHaveLength(64);
    expect(new Set(median.backgroundColor).size).toBe(64);
  });
});

describe('smoothing and wall time on a metric page', () => {
  it('smooths each rank and says so; the loaded values stay raw', () => {
    const d = runWith(['loss'], 20);
    const raw = Array.from(d.metrics[0].values);
    const { figures } = reportFigures(d, { smooth: 0.6 });
    const c = chart(figures[1]);
    expect(c.config.options.plugins.title.text).toBe('loss against step (EMA smoothing 0.6)');
    expect(Array.from(d.metrics[0].values)).toEqual(raw);
    // the first rank's second point: the debiased EMA by hand
    const [v0, v1] = raw;
    const want = (0.6 * 0.4 * v0 + 0.4 * v1) / (1 - 0.36);
    expect(c.config.data.datasets[0].data[1].y).toBeCloseTo(want, 12);
  });

  it('draws against wall time when asked, from the first logged line', () => {
    const { figures } = reportFigures(runWith(['loss'], 20), { x: 'time' });
    const c = chart(figures[1]);
    expect(c.config.options.scales.x.title.text).toBe('seconds since the first logged line');
    const firsts = c.config.data.datasets.map((d: { data: { x: number }[] }) => d.data[0]?.x ?? Infinity);
    expect(Math.min(...firsts)).toBe(0); // the first logged line of the run
    expect(Math.max(...c.config.data.datasets[0].data.map((p: { x: number }) => p.x))).toBeGreaterThan(0.5); // 20 lines ~50 ms apart
    expect(c.config.options.plugins.title.text).toBe('loss against wall time');
  });

  it('says so and keeps step when there are no line times', () => {
    const d = runWith(['loss'], 5);
    for (const m of d.metrics) m.times.fill(NaN);
    const { figures, notes } = reportFigures(d, { x: 'time' });
    expect(chart(figures[1]).config.options.scales.x.title.text).toBe('step');
    expect(notes.join('\n')).toMatch(/drawn against step, not wall time/);
  });

  it('ticks a log axis at 1-2-5 with short labels', () => {
    const c = chart(reportFigures(runWith(['loss'], 200))[`figures`][1]);
    const y = c.config.options.scales.y;
    expect(y.type).toBe('logarithmic');
    const scale = { min: 0.003, max: 0.8, ticks: [] as { value: number }[] };
    y.afterBuildTicks(scale);
    expect(scale.ticks.map((t) => y.ticks.callback(t.value))).toEqual([
      '0.005',
      '0.01',
      '0.02',
      '0.05',
      '0.1',
      '0.2',
      '0.5',
    ]);
  });
});
