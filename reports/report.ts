// The report's entry points: run dir(s) -> data -> figures (pure) -> PNG and PDF files.
import { invalidOption, runPaths } from '../core';
import type { Figure } from './model';
import { loadReportData } from './load/run-dir';
import { writeFigures, type ReportFormat } from './render/output';
import { compareFigure } from './specs/compare';
import { checkSmoothing } from './stats/smooth';
import { reportFigures, type FigureOptions } from './specs/figures';

export type { ReportFormat };
/** Every format, and the default: the PDF, a PNG per figure and report.html (the PNGs embedded). */
const REPORT_FORMATS: readonly ReportFormat[] = ['pdf', 'png', 'html'];
export { writeFigures as writeReport };

export interface ReportOptions extends FigureOptions {
  /** Where the files go; default <run-dir>/reports (for a comparison: the first run dir's reports/). */
  out?: string;
  formats?: readonly ReportFormat[];
  /** The log format for metrics; default job.json's spec.metrics_format. */
  metricsFormat?: string;
  /** The parent MLflow run's URL: on the summary page and linked from report.html. */
  mlflowUrl?: string;
}

/** `files` are the written paths (PDF first); upload them under `reports/` by their base names. */
export interface ReportResult {
  outDir: string;
  files: string[];
  notes: string[];
}

/** "pdf,png,html" -> ['pdf', 'png', 'html']; anything else is an INVALID_SPEC error naming the allowed values. */
export function parseFormats(text: string): ReportFormat[] {
  const parts = text
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter((p) => p !== '');
  const bad = parts.find((p) => !REPORT_FORMATS.includes(p as ReportFormat));
  if (bad !== undefined || parts.length === 0)
    throw invalidOption('format', text, `use one or more of ${REPORT_FORMATS.join(', ')}, comma-separated`);
  return [...new Set(parts as ReportFormat[])];
}

export async function renderReport(runDir: string, opts: ReportOptions = {}): Promise<ReportResult> {
  const smooth = checkSmoothing(opts.smooth ?? 0);
  const data = await loadReportData(runDir, { format: opts.metricsFormat, mlflowUrl: opts.mlflowUrl });
  const { figures, notes } = reportFigures(data, { smooth, x: opts.x });
  return { ...write(figures, runDir, opts, 'report.pdf', opts), notes };
}

export async function renderComparison(
  runDirs: string[],
  opts: ReportOptions & { key?: string } = {},
): Promise<ReportResult> {
  if (runDirs.length < 2)
    throw invalidOption('compare', runDirs.join(' '), 'give at least two jobs or run dirs to compare');
  const runs = [];
  for (const dir of runDirs) runs.push(await loadReportData(dir, { format: opts.metricsFormat }));
  const key = opts.key ?? 'loss';
  const notes = runs
    .filter((r) => !r.metrics.some((m) => m.key === key))
    .map((r) => `${r.runDir}: no "${key}" values; its line is empty`);
  return { ...write([compareFigure(runs, key)], runDirs[0], opts, 'compare.pdf'), notes };
}

/** The figures into `opts.out`, else the run directory's reports/; `page`: report.html's MLflow link. */
function write(figures: Figure[], dir: string, opts: ReportOptions, pdf: string, page: ReportOptions = {}) {
  const outDir = opts.out ?? runPaths(dir).reportsDir;
  const files = writeFigures(figures, outDir, opts.formats ?? REPORT_FORMATS, pdf, opts.out ?? dir, page);
  return { outDir, files };
}
