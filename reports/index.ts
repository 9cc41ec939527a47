// Public API of the reports: what the CLI, submit --follow, ingest/sync and the benchmark call.
export { renderReport, renderComparison, parseFormats, writeReport, REPORT_FORMATS } from './report';
export type { ReportFormat, ReportOptions, ReportResult } from './report';
export { loadReportData } from './load/run-dir';
export type { LoadOptions } from './load/run-dir';
export { reportFigures, MAX_METRIC_CHARTS } from './specs/figures';
export type { FigureOptions } from './specs/figures';
export { compareFigure } from './specs/compare';
export { checkSmoothing } from './stats/smooth';
export type { Figure, MetricSeries, Panel, ReportData } from './model';
export { ensureFont, FONT_FAMILY } from './render/fonts';
