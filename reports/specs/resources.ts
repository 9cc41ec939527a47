// A resource page per node (docs/cluster.md): CPU, memory, per-GPU busy and memory, and a caption with the
// numbers `track-launch status` prints (the same summarizeNode).
import * as path from 'path';
import { formatMiB, summarizeNode, type NodeSummary } from '../../core';
import type { Box, Figure, NodeResources, Panel, ReportData } from '../model';
import { decimate } from '../stats/lttb';
import { resourceColumns, type ResourceColumns } from '../stats/resources';
import { formatDuration, jobSpan } from './summary';
import { axis, colour, FIGURE, LINE_POINTS, linePanel, lineStyle } from './style';

const GPU_ROW_H = 250;

/** Seconds since the job's start, from 0 unless a sample came before it. */
const xAxis = () => ({ ...axis('seconds since job start'), suggestedMin: 0 });
const pct = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(1)}%`);
const line = (label: string, x: ArrayLike<number>, y: ArrayLike<number>, color: string, dash?: number[]) => ({
  label,
  data: decimate(x, y, LINE_POINTS),
  ...lineStyle(color, 1.6),
  ...(dash ? { borderDash: dash } : {}),
});

/** The caption: what `status` says for this node, in lines short enough for the page. */
function resourceCaption(s: NodeSummary): string[] {
  const cpus = s.alloc_cpus ?? s.ncpu;
  const lines = [
    `CPU: the job used ${pct(s.cpu_efficiency)} of ${cpus} ${s.alloc_cpus !== null ? 'allocated' : 'node'} CPU(s) over ` +
      `${formatDuration(s.covered_s)} (${s.job_cpu_s.toFixed(1)} CPU seconds, ${s.samples} samples); ` +
      `the node was ${pct(s.node_cpu_mean)} busy (${s.ncpu} CPUs).`,
    `Memory: job RSS peak ${formatMiB(s.job_rss_peak_mb)}` +
      (s.alloc_mem_mb !== null
        ? ` (${pct((100 * s.job_rss_peak_mb) / s.alloc_mem_mb)} of ${formatMiB(s.alloc_mem_mb)}, --mem)`
        : ' (no --mem)') +
      `; node peak ${formatMiB(s.node_mem_peak_mb)} of ${formatMiB(s.mem_total_mb)}.`,
  ];
  const gpu = (g: NodeSummary['gpus'][number]) =>
    `GPU ${g.index}: ${pct(g.util_mean)} busy, memory peak ` +
    (g.mem_peak_mb === null ? 'n/a' : formatMiB(g.mem_peak_mb)) +
    (g.mem_total_mb ? ` of ${formatMiB(g.mem_total_mb)}` : '');
  // two GPUs a line, so each line fits the page width (an 8-GPU node: four lines)
  const gpus = s.gpus.map(gpu);
  for (let i = 0; i < gpus.length; i += 2) lines.push(gpus.slice(i, i + 2).join('; '));
  return lines;
}

const cpuPanel = (box: Box, c: ResourceColumns): Panel =>
  linePanel(
    box,
    'CPU',
    [
      line(`node: all ${c.ncpu} CPUs`, c.x, c.nodeCpu, colour(0, 4)),
      line(`job: of ${c.cpus} ${c.cpusAllocated ? 'allocated' : 'node'} CPU(s)`, c.x, c.jobCpu, colour(1, 4)),
    ],
    { x: xAxis(), y: { ...axis('CPU busy (%)'), min: 0, suggestedMax: 100 } },
  );

function memoryPanel(box: Box, c: ResourceColumns): Panel {
  const datasets = [
    line('node: used', c.x, c.nodeMem, colour(0, 4)),
    line('job: RSS', c.x, c.jobRss, colour(1, 4)),
  ];
  if (c.allocMem !== null && c.x.length) {
    // a flat line across the samples; the whole range, so LTTB keeps both ends
    const flat = c.x.map(() => c.allocMem as number);
    datasets.push(line(`allocation: ${formatMiB(c.allocMem)} (--mem)`, c.x, flat, colour(3, 4), [6, 4]));
  }
  const max = c.memTotal !== null ? { max: c.memTotal } : {};
  return linePanel(box, 'Memory', datasets, { x: xAxis(), y: { ...axis('memory (MiB)'), min: 0, ...max } });
}

const gpuPanel = (box: Box, c: ResourceColumns, what: 'util' | 'memPct'): Panel =>
  linePanel(
    box,
    what === 'util' ? 'GPU busy' : 'GPU memory',
    c.gpus.map((g, i) => line(`GPU ${g.index}`, c.x, g[what], colour(i, c.gpus.length))),
    {
      x: xAxis(),
      y: { ...axis(what === 'util' ? 'GPU busy (%)' : 'GPU memory used (%)'), min: 0, max: 100 },
    },
  );

/** The page of one node; x is seconds since `t0`, the job's start, the same on every node's page. */
export function resourceFigure(node: NodeResources, t0: number): Figure {
  const c = resourceColumns(node.samples, t0);
  const caption = resourceCaption(summarizeNode(node.host, node.samples));
  const captionH = 36 + caption.length * 20;
  const gpuRow = c.gpus.length ? GPU_ROW_H : 0;
  const height = FIGURE.height + gpuRow;
  const half = FIGURE.width / 2;
  const chartH = FIGURE.height - 48 - captionH - 12;
  const left = (y: number, h: number): Box => ({ x: 16, y, w: half - 24, h });
  const right = (y: number, h: number): Box => ({ x: half + 8, y, w: half - 24, h });
  const panels: Panel[] = [cpuPanel(left(48, chartH), c), memoryPanel(right(48, chartH), c)];
  if (c.gpus.length) {
    panels.push(gpuPanel(left(48 + chartH + 8, gpuRow - 8), c, 'util'));
    panels.push(gpuPanel(right(48 + chartH + 8, gpuRow - 8), c, 'memPct'));
  }
  panels.push({
    kind: 'note',
    box: { x: 24, y: height - captionH, w: FIGURE.width - 48, h: captionH - 8 },
    title: `Efficiency on ${node.host}`,
    lines: caption,
  });
  return {
    name: `resources-${node.host.replace(/[^A-Za-z0-9_.-]/g, '_')}`,
    title: `Resources on ${node.host}: CPU, memory${c.gpus.length ? ' and GPUs' : ''} of the node and of the job`,
    width: FIGURE.width,
    height,
    panels,
  };
}

/** A page per node with samples, all on one time axis from the job's start; notes for nodes or jobs with none. */
export function resourcePages(d: ReportData): { figures: Figure[]; notes: string[] } {
  const nodes = d.resources ?? [];
  const logs = path.join(d.runDir, 'logs');
  const sampled = nodes.filter((n) => n.samples.length > 0);
  if (sampled.length === 0) {
    return {
      figures: [],
      notes: [
        `No resource samples in ${logs}/node-<host>.resources.jsonl: no resource pages ` +
          '(the job samples every --sample-interval seconds; 0 turns it off).',
      ],
    };
  }
  // the job's start, else the beginning of the earliest sample
  const t0 = jobSpan(d).start ?? Math.min(...sampled.map((n) => n.samples[0].t - n.samples[0].dt));
  return {
    figures: sampled.map((n) => resourceFigure(n, t0)),
    notes: nodes
      .filter((n) => n.samples.length === 0)
      .map(
        (n) =>
          `${logs}/node-${n.host}.resources.jsonl has no complete sample: no resource page for ${n.host}.`,
      ),
  };
}
