// The report's entry points: run dir(s) -> data -> figures (pure) -> PNG and PDF files.
import { invalidOption } from '../core';
import { runPaths } from '../core';
import { loadReportData } from './load/run-dir';
import type { Figure } from './model';
import { writeFigures } from './render/output';
import { compareFigure } from './specs/compare';
import { reportFigures } from './specs/figures';

export type ReportFormat = 'pdf' | 'png';
export const REPORT_FORMATS: readonly ReportFormat[] = ['pdf', 'png'];

export interface ReportOptions {
  /** Where the files go; default <run-dir>/reports (for a comparison: the first run dir's reports/). */
  out?: string;
  formats?: readonly ReportFormat[];
  /** The log format for metrics; default job.json's spec.metrics_format. */
  metricsFormat?: string;
}

/** `files` are the written paths (PDF first); upload them under `reports/` by their base names. */
export interface ReportResult {
  outDir: string;
  files: string[];
  notes: string[];
}

/** "pdf,png" -> ['pdf', 'png']; anything else is an INVALID_SPEC error naming the allowed values. */
export function parseFormats(text: string): ReportFormat[] {
  const parts = text
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter((p) => p !== '');
  const bad = parts.find((p) => !REPORT_FORMATS.includes(p as ReportFormat));
  if (bad !== undefined || parts.length === 0) throw invalidOption('format', text, 'use pdf, png or pdf,png');
  return [...new Set(parts as ReportFormat[])];
}

/** `root`: the run directory whose reports/ `outDir` is; default `outDir` itself (an --out directory). */
export function writeReport(
  figures: Figure[],
  outDir: string,
  formats: readonly ReportFormat[],
  pdfName: string,
  root = outDir,
): string[] {
  return writeFigures(figures, outDir, new Set(formats), pdfName, root);
}

export async function renderReport(runDir: string, opts: ReportOptions = {}): Promise<ReportResult> {
  const data = await loadReportData(
    runDir,
    opts.metricsFormat === undefined ? {} : { format: opts.metricsFormat },
  );
  const { figures, notes } = reportFigures(data);
  const outDir = opts.out ?? runPaths(runDir).reportsDir;
  const root = opts.out ?? runDir;
  return {
    outDir,
    files: writeReport(figures, outDir, opts.formats ?? REPORT_FORMATS, 'report.pdf', root),
    notes,
  };
}

export async function renderComparison(
  runDirs: string[],
  opts: ReportOptions & { key?: string } = {},
): Promise<ReportResult> {
  if (runDirs.length < 2)
    throw invalidOption('compare', runDirs.join(' '), 'give at least two jobs or run dirs to compare');
  const runs = [];
  for (const dir of runDirs)
    runs.push(
      await loadReportData(dir, opts.metricsFormat === undefined ? {} : { format: opts.metricsFormat }),
    );
  const key = opts.key ?? 'loss';
  const notes = runs
    .filter((r) => !r.metrics.some((m) => m.key === key))
    .map((r) => `${r.runDir}: no "${key}" values; its line is empty`);
  const outDir = opts.out ?? runPaths(runDirs[0]).reportsDir;
  const root = opts.out ?? runDirs[0];
  return {
    outDir,
    files: writeReport(
      [compareFigure(runs, key)],
      outDir,
      opts.formats ?? REPORT_FORMATS,
      'compare.pdf',
      root,
    ),
    notes,
  };
}
