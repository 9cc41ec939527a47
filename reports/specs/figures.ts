// Pure: a run's data -> the report's figures, in page order, and the notes the user should read.
import * as path from 'path';
import type { Figure, ReportData } from '../model';
import { metricKeys } from '../load/metrics';
import { EVALUATION_HOWTO, evaluationFigure } from './evaluation';
import { lossFigure } from './loss';
import { stragglersFigure } from './stragglers';
import { resourcePages } from './resource-pages';
import { summaryFigure } from './summary';
import { stragglerStats } from '../stats/stragglers';

/** Beyond this many metric keys only the first are drawn (each key is a page). */
export const MAX_METRIC_PAGES = 8;

export function reportFigures(d: ReportData): { figures: Figure[]; notes: string[] } {
  const notes: string[] = [];
  const keys = metricKeys(d.metrics);
  if (keys.length === 0) {
    notes.push(
      `No metric lines found in ${path.join(d.runDir, 'logs')}/rank-R.out: no loss or straggler pages.`,
    );
    notes.push('Set the log format with --metrics-format at submit time (see docs/reports.md).');
  }
  if (keys.length > MAX_METRIC_PAGES)
    notes.push(`${keys.length} metric keys; drawn: ${keys.slice(0, MAX_METRIC_PAGES).join(', ')}.`);
  // Straggler statistics of the first key, once: the notes, the summary and the stragglers page use them.
  const stats = keys.length > 0 ? stragglerStats(d.metrics.filter((m) => m.key === keys[0])) : undefined;
  if (stats) {
    if (!stats.some((s) => s.median > 0)) {
      notes.push(
        'No line times: the stragglers page is empty. It needs logs/rank-R.out.ts (written by the rank bootstrap).',
      );
    }
  }
  if (!d.evaluation) notes.push(...EVALUATION_HOWTO);
  const resources = resourcePages(d);
  notes.push(...resources.notes);
  const figures: Figure[] = [summaryFigure(d, notes, stats)];
  for (const key of keys.slice(0, MAX_METRIC_PAGES)) figures.push(lossFigure(d.metrics, key));
  if (d.evaluation) figures.push(evaluationFigure(d.evaluation));
  if (stats) figures.push(stragglersFigure(d.metrics, keys[0], stats));
  figures.push(...resources.figures);
  return { figures, notes };
}
