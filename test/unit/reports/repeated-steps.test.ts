// A requeue that restarts at step 0: every figure and `report --compare` show each rank's latest value
// of a step (the parent's rule), no line runs back to step 0, and the repeated steps are shaded.
import * as path from 'path';
import { toMetricSeries } from '../../../reports/load/metrics';
import { renderComparison, renderReport } from '../../../reports/report';
import type { Figure, Panel, ReportData } from '../../../reports/model';
import { compareFigure } from '../../../reports/specs/compare';
import { metricFigure } from '../../../reports/specs/metric';
import { wallClock } from '../../../reports/stats/wall-time';
import { PointColumns } from '../../../tracking-plugin/logs/columns';
import { appendLines, jobRecord, makeRunDir, polyLine, writeJob } from '../tracking/fixture';
import { pdfText, tmpDir } from './helpers/check-output';

jest.setTimeout(60_000);

type ChartPanel = Extract<Panel, { kind: 'chart' }>;
const chart = (f: Figure, i = 0) => f.panels.filter((p): p is ChartPanel => p.kind === 'chart')[i];
type Line = { label: string; data: { x: number; y: number }[] };
const lines = (p: ChartPanel) => p.config.data.datasets as unknown as Line[];

// Two ranks; attempt 1 logs steps 0..5, attempt 2 restarts at step 0 and reaches step 3; rank 1 logs
// step 4 twice in attempt 1. Values exact in binary, so any order of summing agrees.
const logged = (rank: number) => {
  const a1 = [0, 1, 2, 3, 4, 5].map((s) => ({ step: s, value: 10 + s + rank, t: 1000 * s }));
  const dup = rank === 1 ? [{ step: 4, value: 99, t: 4500 }] : [];
  const a2 = [0, 1, 2, 3].map((s) => ({ step: s, value: 0.5 * s + rank, t: 60_000 + 1000 * s }));
  return [...a1.slice(0, 5), ...dup, a1[5], ...a2];
};
const points = (rank: number) =>
  logged(rank).map((p) => ({ key: 'loss', value: p.value, step: p.step, timestamp: p.t }));
const ranks = [0, 1].map((rank) => ({
  rank,
  columns: PointColumns.from(points(rank)),
  points: points(rank),
  skipped: 0,
}));

/** The test's own reading: per rank, each step's last line; the mean over the ranks at each step. */
function expectedMean(): { x: number; y: number }[] {
  const last = [0, 1].map((r) => {
    const m = new Map<number, number>();
    for (const p of logged(r)) m.set(p.step, p.value);
    return m;
  });
  return [0, 1, 2, 3, 4, 5].map((s) => ({
    x: s,
    y: ((last[0].get(s) as number) + (last[1].get(s) as number)) / 2,
  }));
}

const nonDecreasing = (d: { x: number }[]) => d.every((p, i) => i === 0 || p.x > d[i - 1].x);

describe('a requeue that repeats steps, in the reports', () => {
  const metrics = toMetricSeries(ranks);

  it('loads each rank with the latest value of each step, steps ascending, the restart recorded', () => {
    for (const m of metrics) {
      const want = new Map(logged(m.rank).map((p) => [p.step, p.value]));
      expect([...m.steps]).toEqual([0, 1, 2, 3, 4, 5]);
      expect([...m.values]).toEqual([...m.steps].map((s) => want.get(s)));
      expect(m.repeats).toEqual([{ from: 0, to: 3, before: 5000, after: 60_000 }]);
    }
  });

  it('draws rank lines that never run back, the mean of the latest values, and shades the repeat', () => {
    const fig = metricFigure(metrics, { name: 'loss', keys: ['loss'] }, { smooth: 0 });
    const ds = lines(chart(fig));
    for (const d of ds.filter((d) => d.data.length)) expect(nonDecreasing(d.data)).toBe(true);
    expect(ds.find((d) => d.label === 'mean over ranks')?.data).toEqual(expectedMean());
    expect(ds.map((d) => d.label)).toContain('steps logged again after a restart (latest shown)');
    expect(chart(fig).config.plugins).toHaveLength(1);
    // against wall time: the gap between the attempts is shaded
    const clock = wallClock(metrics);
    const onTime = metricFigure(metrics, { name: 'loss', keys: ['loss'] }, { smooth: 0, clock });
    expect(lines(chart(onTime)).map((d) => d.label)).toContain('restart (no lines logged)');
  });

  it('report --compare: the same rule', () => {
    const data: ReportData = { runDir: '/tmp/requeued', facts: [], metrics, skipped: 0 };
    const fig = compareFigure([data]);
    const byStep = lines(chart(fig, 0));
    expect(byStep[0].data).toEqual(expectedMean());
    expect(nonDecreasing(byStep[0].data)).toBe(true);
    expect(byStep.map((d) => d.label)).toContain('steps logged again after a restart (latest shown)');
    expect(chart(fig, 1).config.plugins).toHaveLength(1);
  });
});

describe('a requeued run dir, rendered', () => {
  it('shows the repeat in the report and in the comparison (legend text in the PDF)', async () => {
    const dir = await makeRunDir();
    await writeJob(dir, jobRecord({}, 2));
    for (const r of [0, 1]) {
      await appendLines(
        dir,
        r,
        [0, 1, 2, 3].map((e) => polyLine(e, r, 2, 10 + e + r)),
        1764669000,
      );
      await appendLines(
        dir,
        r,
        [0, 1].map((e) => polyLine(e, r, 2, 1 + e + r)),
        1764669100,
      );
    }
    const out = tmpDir('requeued');
    const { files } = await renderReport(dir, { out, formats: ['pdf'] });
    expect(pdfText(files[0])).toContain('steps logged again after a restart (latest shown)');
    const cmp = await renderComparison([dir, dir], { out: path.join(out, 'cmp'), formats: ['pdf'] });
    const text = pdfText(cmp.files[0]);
    expect(text).toContain('steps logged again after a restart (latest shown)');
    expect(text).toContain('restart (no lines logged)');
  });
});
