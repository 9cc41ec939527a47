// Figure 0: the summary page — who ran where, how, for how long, how it ended, and the final metrics.
import { formatMiB, summarizeJob, summarizeNode } from '../../core';
import { TABLE, type Figure, type NodeResources, type ReportData } from '../model';
import { metricKeys, stragglerKey } from './metric-groups';
import {
  CPU_STANDS_OUT,
  cpuStats,
  findStraggler,
  STANDS_OUT,
  stragglerStats,
  type RankStats,
  type Straggler,
} from '../stats/stragglers';
import { FIGURE } from './style';

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return 'unknown';
  const s = Math.round(seconds);
  const [h, m, r] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  return h > 0
    ? `${h}h ${String(m).padStart(2, '0')}m ${String(r).padStart(2, '0')}s`
    : m > 0
      ? `${m}m ${String(r).padStart(2, '0')}s`
      : `${r}s`;
}

const iso = (unixSeconds: number | undefined) =>
  unixSeconds === undefined ? 'unknown' : new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z');
const fmt = (v: number) =>
  !Number.isFinite(v)
    ? String(v)
    : Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3)
      ? v.toExponential(3)
      : String(Number(v.toPrecision(4)));

/** Start and end of the job: job.json's state, else the earliest rank start and latest rank end. */
export function jobSpan(d: ReportData): { start?: number; end?: number } {
  const starts = d.facts.map((f) => f.started_at);
  const ends = d.facts.map((f) => f.ended_at).filter((e): e is number => e !== undefined);
  const start = d.job?.state?.started_at ?? (starts.length ? Math.min(...starts) : undefined);
  const end = d.job?.state?.ended_at ?? (ends.length ? Math.max(...ends) : undefined);
  return { ...(start === undefined ? {} : { start }), ...(end === undefined ? {} : { end }) };
}

/** "slurm on hpc1, partition gpu (account a, qos q)"; only what job.json knows. */
function clusterText(d: ReportData): string {
  const job = d.job;
  if (!job) return 'unknown (no job.json)';
  const spec = job.spec;
  const extra = [spec.account && `account ${spec.account}`, spec.qos && `qos ${spec.qos}`].filter(Boolean);
  return (
    `${job.executor}${job.cluster && job.cluster !== job.executor ? ` on ${job.cluster}` : ''}` +
    (job.executor === 'slurm' ? `, partition ${spec.partition ?? "the cluster's default"}` : '') +
    (extra.length ? ` (${extra.join(', ')})` : '')
  );
}

/** "3 nodes: a, b, c (Slurm: a[1-3])": the count, each host, a Slurm job's node list when it says more. */
export function nodesText(requested: number | undefined, hosts: string[], slurmList?: string): string {
  const count = requested ?? hosts.length;
  const noun = `${count} node${count === 1 ? '' : 's'}`;
  const slurm = slurmList && slurmList !== hosts.join(',') ? ` (Slurm: ${slurmList})` : '';
  if (hosts.length === 0) return slurmList ? `${noun}: ${slurmList}` : noun;
  if (requested !== undefined && requested !== hosts.length)
    return `${noun} requested; ranks ran on ${hosts.length} host${hosts.length === 1 ? '' : 's'}: ${hosts.join(', ')}${slurm}`;
  return `${noun}: ${hosts.join(', ')}${slurm}`;
}

/** Nodes named one by one up to here; beyond, the largest and the smallest peak. */
const MAX_NODES_LISTED = 8;

const hours = (s: number) => (s >= 360 ? `${(s / 3600).toFixed(1)} h` : `${s.toFixed(1)} s`);

/** The efficiency rows from the node samples, as `track-launch status` prints them: CPU, peak RSS, GPUs. */
function efficiencyRows(nodes: readonly NodeResources[] | undefined): [string, string][] {
  const sampled = (nodes ?? []).filter((n) => n.samples.length > 0);
  if (sampled.length === 0) return [];
  const job = summarizeJob(sampled.map((n) => summarizeNode(n.host, n.samples)));
  const rows: [string, string][] = [];
  if (job.cpu_efficiency !== null)
    rows.push([
      'CPU efficiency',
      `${job.cpu_efficiency.toFixed(1)}%: ${hours(job.job_cpu_s)} of CPU time used of ${hours(job.core_walltime_s)} ` +
        `allocated (sampled time x CPUs per node, ${sampled.length} node${sampled.length === 1 ? '' : 's'})`,
    ]);
  const peaks = [...job.nodes].sort((a, b) => b.job_rss_peak_mb - a.job_rss_peak_mb);
  const shown = peaks.length <= MAX_NODES_LISTED ? peaks : [peaks[0], peaks[peaks.length - 1]];
  const of = (alloc: number | null) => (alloc === null ? '' : ` of ${formatMiB(alloc)}`);
  rows.push([
    'Max RSS per node',
    shown.map((n) => `${n.host} ${formatMiB(n.job_rss_peak_mb)}${of(n.alloc_mem_mb)}`).join(', ') +
      (shown.length < peaks.length ? ` (largest and smallest of ${peaks.length} nodes)` : ''),
  ]);
  if (job.gpu_count > 0 && job.gpu_busy_mean !== null) {
    const peak = job.gpu_mem_peak;
    rows.push([
      'GPUs',
      `${job.gpu_count} GPU(s), ${job.gpu_busy_mean.toFixed(1)}% busy on average` +
        (peak
          ? `; memory peak ${formatMiB(peak.mem_mb)}${of(peak.total_mb)} (${peak.host} GPU ${peak.index})`
          : ''),
    ]);
  }
  return rows;
}

/** `stats`: stragglerStats of the stragglers key's series, when the caller has them already. */
export function summaryRows(d: ReportData, stats?: RankStats[]): [string, string][] {
  const job = d.job;
  const spec = job?.spec;
  const hosts = [
    ...new Set([
      ...d.facts.map((f) => f.host),
      ...d.metrics.map((m) => m.host).filter((h): h is string => !!h),
    ]),
  ].sort();
  const ranks = new Set([...d.facts.map((f) => f.rank), ...d.metrics.map((m) => m.rank)]).size;
  const master = d.facts.find((f) => f.rank === 0) ?? d.facts[0];
  const launchers = [...new Set(d.facts.map((f) => f.launcher))];
  const { start, end } = jobSpan(d);
  const state = job?.state;
  const stateText = state
    ? [
        state.name,
        state.exit_code !== undefined ? `exit code ${state.exit_code}` : '',
        state.reason ?? '',
        state.failed_rank !== undefined
          ? `failed rank ${state.failed_rank} on ${state.failed_host ?? '?'}`
          : '',
      ]
        .filter((t) => t !== '')
        .join(', ')
    : 'unknown (no job.json state)';
  const rows: [string, string][] = [
    ['Job', `${job?.name ?? '?'}, job id ${job?.job_id ?? '?'}`],
    ['Run directory', d.runDir],
    ['Cluster', clusterText(d)],
    ['MLflow', d.mlflowUrl ?? 'no MLflow run recorded for this run directory'],
    ['Final state', stateText],
    ['Nodes', nodesText(spec?.nodes, hosts, job?.executor === 'slurm' ? state?.nodes : undefined)],
    [
      'Ranks',
      `${ranks} (world size ${spec?.world_size ?? master?.world_size ?? '?'}, ${spec?.tasks_per_node ?? '?'} per node, ${spec?.gpus_per_node ?? '?'} GPUs per node)`,
    ],
    ['Master', master ? `${master.master_addr}:${master.master_port}` : '?'],
    ['Backend', spec?.backend ?? '?'],
    [
      'Launcher',
      `${spec?.launcher ?? '?'}${launchers.length ? ` (ranks started by ${launchers.join(', ')})` : ''}`,
    ],
    ['Command', spec?.command.join(' ') ?? '?'],
    ['Started', iso(start)],
    [
      'Duration',
      start !== undefined && end !== undefined ? formatDuration(end - start) : 'unknown (not finished)',
    ],
    ...efficiencyRows(d.resources),
  ];
  if (job?.restarts) rows.push(['Restarts', String(job.restarts)]);
  for (const key of metricKeys(d.metrics)) {
    const finals = d.metrics
      .filter((m) => m.key === key && m.values.length > 0)
      .map((m) => m.values[m.values.length - 1]);
    const mean = finals.reduce((a, b) => a + b, 0) / finals.length;
    rows.push([
      `Final ${key}`,
      `mean ${fmt(mean)} over ${finals.length} ranks (min ${fmt(Math.min(...finals))}, max ${fmt(Math.max(...finals))})`,
    ]);
  }
  const key = stragglerKey(d.metrics);
  const all =
    key === undefined ? undefined : (stats ?? stragglerStats(d.metrics.filter((m) => m.key === key)));
  const straggler = all && findStraggler(all, cpuStats(d.facts));
  if (straggler) rows.push(['Slowest rank', stragglerText(straggler)]);
  if (d.skipped > 0)
    rows.push([
      'Other log lines',
      `${d.skipped} lines with no metric (startup messages and the like; a metric line the format misses counts here too)`,
    ]);
  return rows;
}

export function summaryFigure(d: ReportData, notes: string[], stats?: RankStats[]): Figure {
  const job = d.job;
  const rows = summaryRows(d, stats).map(([k, v]): [string, string] => [
    k,
    wrapWords(v, TABLE.valueChars).join('\n'),
  ]);
  const lines = rows.reduce((n, [, v]) => n + v.split('\n').length - 1, 0);
  const tableHeight = 40 + rows.length * TABLE.row + lines * TABLE.valueLine;
  const notesHeight = notes.length ? 40 + notes.length * 20 : 0;
  // The page grows with the table and notes instead of cutting them off.
  const height = Math.max(FIGURE.height, 56 + tableHeight + notesHeight + 20);
  const panels: Figure['panels'] = [
    {
      kind: 'table',
      box: { x: 24, y: 56, w: FIGURE.width - 48, h: tableHeight },
      title: 'Job summary',
      rows,
    },
  ];
  if (notes.length)
    panels.push({
      kind: 'note',
      box: { x: 24, y: 60 + tableHeight, w: FIGURE.width - 48, h: notesHeight },
      title: 'Notes',
      lines: notes,
    });
  return {
    name: 'summary',
    title: `track-launch report: ${job?.name ?? d.runDir}${job?.job_id ? ` (job ${job.job_id})` : ''}`,
    width: FIGURE.width,
    height,
    panels,
  };
}

const percent = (ratio: number) => `${Math.round((ratio - 1) * 100)} %`;

/** What the summary says of the straggler: who, and by which measure, or why nobody is named. */
function stragglerText(s: Straggler): string {
  const who = (r: { rank: number; host?: string }) => `rank ${r.rank} (${r.host ?? '?'})`;
  switch (s.by) {
    case 'step':
      return `${who(s.rank)}: median ${fmt(s.rank.median)} s per logged step, ${s.rank.relative.toFixed(2)}x the median rank`;
    case 'cpu':
      return (
        `${who(s.rank)} by CPU time: ${fmt(s.rank.cpu)} s, ${s.rank.relative.toFixed(2)}x the median rank's ` +
        "(step times cannot show it: under DDP every rank steps at the slowest one's pace)"
      );
    case 'none':
      return (
        `none stands out in step time (every rank within ${percent(STANDS_OUT)} of the median rank's; ` +
        "under DDP every rank steps at the slowest one's pace) " +
        (s.cpuRanks >= 2
          ? `or CPU time (within ${percent(CPU_STANDS_OUT)}; a rank slowed by waiting, e.g. on I/O, uses no more CPU)`
          : 'and no CPU time per rank is recorded yet (logs/rank-R.json has it once a rank ends)')
      );
  }
}

/** `text` in lines of at most `chars` characters, broken at spaces; a longer word keeps its own line. */
export function wrapWords(text: string, chars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > chars) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines;
}
