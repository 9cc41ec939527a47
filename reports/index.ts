// Public API of the reports: what the CLI, submit --follow, ingest/sync and the benchmark call.
export { renderReport, renderComparison, parseFormats } from './report';
export type { ReportResult } from './report';
export { loadReportData } from './load/run-dir';
export { reportFigures } from './specs/figures';
export { ensureFont, FONT_FAMILY, inkedPixels } from './render/fonts';
export { rendererInfo } from './render/canvas';
