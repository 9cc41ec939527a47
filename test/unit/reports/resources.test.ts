// The resource page per node: data read from the real 3-node run, the figure as data (pure), and
// the rendered PDF page and PNG checked with poppler and a PNG decoder; GPUs from synthetic samples.
import * as path from 'path';
import type { ResourceSample } from '../../../core/resource-samples';
import { loadReportData } from '../../../reports/load/run-dir';
import type { Figure, Panel, ReportData } from '../../../reports/model';
import { renderReport, writeReport } from '../../../reports/report';
import { reportFigures } from '../../../reports/specs/figures';
import { resourceFigure } from '../../../reports/specs/resources';
import { resourceColumns } from '../../../reports/stats/resources';
import { FIXTURES, pdfPages, pdfText, pngInk, pngSize, tmpDir } from './helpers/check-output';

jest.setTimeout(60_000);
const NODES = path.join(FIXTURES, 'polynomial-3-nodes');
type ChartPanel = Extract<Panel, { kind: 'chart' }>;
const charts = (f: Figure) => f.panels.filter((p): p is ChartPanel => p.kind === 'chart');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const yAxis = (p: ChartPanel) => (p.config.options as any).scales.y;
const labels = (p: ChartPanel) => p.config.data.datasets.map((d) => d.label);

const gpuSample = (i: number, over: Partial<ResourceSample> = {}): ResourceSample => ({
  version: 1,
  t: 1000 + 10 * i,
  dt: 10,
  host: 'gpu-01',
  ncpu: 64,
  cpu_util: 30,
  mem_used_mb: 100_000,
  mem_total_mb: 512_000,
  alloc_cpus: 16,
  alloc_mem_mb: 200_000,
  job: { nproc: 9, cpu_s: 80, cpu_util: 800, rss_mb: 90_000 },
  gpus: [0, 1, 2, 3].map((index) => ({
    index,
    util: index === 3 ? null : 90 + index,
    mem_used_mb: 40_000,
    mem_total_mb: 81_920,
  })),
  ...over,
});

describe('the real 3-node run', () => {
  let data: ReportData;
  beforeAll(async () => {
    data = await loadReportData(NODES);
  });

  it('reads every node file, hosts sorted, and adds one page per node after the others, no notes', () => {
    expect(data.resources?.map((n) => [n.host, n.samples.length])).toEqual([
      ['tlnode1', 7],
      ['tlnode2', 7],
      ['tlnode3', 7],
    ]);
    const { figures, notes } = reportFigures(data);
    expect(figures.map((f) => f.name)).toEqual([
      'summary',
      'loss',
      'evaluation',
      'stragglers',
      'resources-tlnode1',
      'resources-tlnode2',
      'resources-tlnode3',
    ]);
    expect(notes).toEqual([]);
  });

  it('x is seconds since the job start, the same origin on every page; CPU against the allocation', () => {
    const t0 = Math.min(...data.facts.map((f) => f.started_at)); // job.json of this run has no started_at
    const n1 = data.resources![0];
    const c = resourceColumns(n1.samples, t0);
    expect(c.x[0]).toBeCloseTo(n1.samples[0].t - t0, 9);
    expect(Array.from(c.jobCpu)).toEqual(n1.samples.map((s) => s.job.cpu_util / 1)); // alloc_cpus 1
    expect([c.cpus, c.cpusAllocated, c.ncpu, c.allocMem, c.memTotal, c.gpus]).toEqual([
      1,
      true,
      2,
      null,
      24105,
      [],
    ]);
    const fig = reportFigures(data).figures.find((f) => f.name === 'resources-tlnode1')!;
    const [cpu, mem] = charts(fig);
    expect(labels(cpu)).toEqual(['node: all 2 CPUs', 'job: of 1 allocated CPU(s)']);
    expect(labels(mem)).toEqual(['node: used', 'job: RSS']); // no --mem: no allocation line
    expect(yAxis(mem).max).toBe(24105);
    expect(fig.panels.find((p) => p.kind === 'note')).toMatchObject({ title: 'Efficiency on tlnode1' });
  });
});

describe('a GPU node (synthetic samples)', () => {
  const samples = Array.from({ length: 30 }, (_, i) => gpuSample(i));
  const fig = resourceFigure({ host: 'gpu-01', samples }, 990);

  it('adds GPU busy and GPU memory charts, one line per GPU, gaps where the driver gave nothing', () => {
    const [, mem, util, gmem] = charts(fig);
    expect(labels(mem)).toEqual(['node: used', 'job: RSS', 'allocation: 195.3 GiB (--mem)']);
    expect(labels(util)).toEqual(['GPU 0', 'GPU 1', 'GPU 2', 'GPU 3']);
    expect(util.config.data.datasets[3].data).toEqual([]); // GPU 3's util is null throughout
    expect((gmem.config.data.datasets[0].data[0] as { y: number }).y).toBeCloseTo((100 * 40_000) / 81_920, 9);
    expect(yAxis(util)).toMatchObject({ min: 0, max: 100 });
    expect((charts(fig)[0].config.data.datasets[1].data[0] as { y: number }).y).toBe(800 / 16);
    expect(fig.height).toBeGreaterThan(560);
  });

  it('renders: axis titles as PDF text, a PNG that is not blank', async () => {
    const out = tmpDir('resources-gpu');
    const [pdf, png] = writeReport([fig], out, ['pdf', 'png'], 'r.pdf');
    const text = pdfText(pdf);
    for (const s of [
      'seconds since job start',
      'CPU busy (%)',
      'memory (MiB)',
      'GPU busy (%)',
      'GPU memory used (%)',
      'GPU 3',
      'Efficiency on gpu-01',
    ]) {
      expect(text).toContain(s);
    }
    expect(path.basename(png)).toBe('resources-gpu-01.png');
    expect(pngSize(png)).toEqual({ width: 2000, height: 2 * fig.height });
    const { ink, transparent } = await pngInk(png);
    expect(transparent).toBe(false);
    expect(ink).toBeGreaterThan(0.01);
  });
});

it('a run without samples: no resource page, and a note that says why', () => {
  const { figures, notes } = reportFigures({ runDir: '/r', facts: [], metrics: [], skipped: 0 });
  expect(figures.map((f) => f.name)).toEqual(['summary']);
  expect(notes.join('\n')).toMatch(
    /No resource samples in \/r\/logs\/node-<host>\.resources\.jsonl: no resource pages/,
  );
  const empty = reportFigures({
    runDir: '/r',
    facts: [],
    metrics: [],
    skipped: 0,
    resources: [
      { host: 'a', samples: [] },
      { host: 'b', samples: [gpuSample(0)] },
    ],
  });
  expect(empty.figures.map((f) => f.name)).toEqual(['summary', 'resources-b']);
  expect(empty.notes.join('\n')).toMatch(
    /node-a\.resources\.jsonl has no complete sample: no resource page for a/,
  );
});

it('renders the real run: one page per node in the PDF, resources-<host>.png each, not blank', async () => {
  const out = tmpDir('resources-real');
  const { files } = await renderReport(NODES, { out });
  expect(files.map((f) => path.basename(f)).slice(-3)).toEqual([
    'resources-tlnode1.png',
    'resources-tlnode2.png',
    'resources-tlnode3.png',
  ]);
  expect(pdfPages(files[0])).toBe(7);
  const text = pdfText(files[0]);
  for (const s of [
    'Resources on tlnode2',
    'CPU busy (%)',
    'memory (MiB)',
    'seconds since job start',
    'job: RSS',
    'Efficiency on tlnode3',
  ]) {
    expect(text).toContain(s);
  }
  for (const png of files.slice(-3)) {
    expect((await pngInk(png)).ink).toBeGreaterThan(0.01);
  }
});
