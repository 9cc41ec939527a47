// Pure: a run's data -> the report's figures, in page order, and the notes the user should read.
import { createHash } from 'crypto';
import * as path from 'path';
import type { Figure, ReportData } from '../model';
import { cpuStats, stragglerStats } from '../stats/stragglers';
import { wallClock } from '../stats/wall-time';
import { EVALUATION_HOWTO, evaluationFigure } from './evaluation';
import { metricFigure, type MetricView } from './metric';
import { MAX_METRIC_CHARTS, metricGroups, stragglerKey, type MetricGroup } from './metric-groups';
import { resourcePages } from './resources';
import { stragglersFigure } from './stragglers';
import { summaryFigure } from './summary';
import { FIGURE } from './style';

/** How the metric pages are drawn (docs/reports.md): EMA weight in [0, 1), 0 = raw; x axis step or wall time. */
export interface FigureOptions {
  smooth?: number;
  x?: 'step' | 'time';
}

export function reportFigures(
  d: ReportData,
  opts: FigureOptions = {},
): { figures: Figure[]; notes: string[] } {
  const notes: string[] = [];
  const groups = metricGroups(d.metrics.map((m) => m.key));
  if (groups.length === 0) {
    notes.push(
      `No metric lines found in ${path.join(d.runDir, 'logs')}/rank-R.out: no loss or straggler pages.`,
    );
    notes.push('Set the log format with --metrics-format at submit time (see docs/reports.md).');
  }
  const drawn = groups.slice(0, MAX_METRIC_CHARTS);
  const undrawn = groups.slice(MAX_METRIC_CHARTS);
  if (undrawn.length)
    notes.push(
      `${groups.length} metric names; ${MAX_METRIC_CHARTS} drawn, the rest listed on the last metric page.`,
    );
  const view: MetricView = { smooth: opts.smooth ?? 0 };
  if (opts.x === 'time') {
    const clock = wallClock(d.metrics);
    if (clock) view.clock = clock;
    else notes.push('No line times (logs/rank-R.out.ts): metrics are drawn against step, not wall time.');
  }
  // Straggler statistics of one key, once: the notes, the summary and the stragglers page use them.
  const key = stragglerKey(d.metrics);
  const stats = key === undefined ? undefined : stragglerStats(d.metrics.filter((m) => m.key === key));
  if (stats && !stats.some((s) => s.median > 0)) {
    notes.push(
      d.lineTimes
        ? 'Every rank logged its steps at one time (its lines were written at once, e.g. output buffered until the end: run Python with -u): the stragglers page is empty.'
        : 'No line times: the stragglers page is empty. It needs logs/rank-R.out.ts (written by the rank bootstrap).',
    );
  }
  if (!d.evaluation) notes.push(...EVALUATION_HOWTO);
  const resources = resourcePages(d);
  notes.push(...resources.notes);
  const figures: Figure[] = [summaryFigure(d, notes, stats)];
  figures.push(...drawn.map((g) => metricFigure(d.metrics, g, view)));
  if (undrawn.length) figures.push(undrawnFigure(undrawn, MAX_METRIC_CHARTS));
  if (d.evaluation) figures.push(evaluationFigure(d.evaluation));
  if (stats && key !== undefined) figures.push(stragglersFigure(d.metrics, key, stats, cpuStats(d.facts)));
  figures.push(...resources.figures);
  return { figures: uniqueNames(figures), notes };
}

/** The longest figure name kept whole: with `.png` and the writer's temporary suffix it stays well
 *  inside a file system's 255 bytes. */
export const MAX_FILE_NAME = 120;

/** Figure names as file names: characters other than letters, digits, `_ . -` as `_`; a longer name
 *  cut, with a hash of the whole; names that still clash (`a/b`, `a_b`; case apart) get `-2`, `-3`, ...,
 *  a number no other figure's name has: no PNG overwrites another. */
export function uniqueNames(figures: Figure[]): Figure[] {
  const base = figures.map((f) => bounded(f.name.replace(/[^A-Za-z0-9_.-]/g, '_')));
  const taken = new Set(base.map((b) => b.toLowerCase()));
  const seen = new Set<string>();
  return figures.map((f, i) => {
    let name = base[i];
    if (seen.has(name.toLowerCase()))
      for (let n = 2; taken.has((name = bounded(`${base[i]}-${n}`)).toLowerCase()); n++);
    taken.add(name.toLowerCase());
    seen.add(name.toLowerCase());
    return name === f.name ? f : { ...f, name };
  });
}

function bounded(name: string): string {
  if (name.length <= MAX_FILE_NAME) return name;
  const hash = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 16);
  return `${name.slice(0, MAX_FILE_NAME - hash.length - 1)}-${hash}`;
}

/** The page that lists the metrics past MAX_METRIC_CHARTS by name, so nothing logged goes unmentioned. */
function undrawnFigure(groups: readonly MetricGroup[], cap: number): Figure {
  const lines = groups.map((g) => `${g.name}: ${g.keys.join(', ')}`);
  const h = 40 + lines.length * 20;
  return {
    name: 'metrics-not-drawn',
    title: `${groups.length} more metric name${groups.length === 1 ? '' : 's'}, not drawn (a report draws at most ${cap} charts)`,
    width: FIGURE.width,
    height: Math.max(FIGURE.height, 56 + h + 20),
    panels: [
      {
        kind: 'note',
        box: { x: 24, y: 56, w: FIGURE.width - 48, h },
        title: 'Name: keys (as parsed from the rank logs; --metrics-format decides what is parsed)',
        lines,
      },
    ],
  };
}
