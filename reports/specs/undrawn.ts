// The page that lists the metrics past MAX_METRIC_CHARTS by name, so nothing logged goes unmentioned.
import type { Figure } from '../model';
import type { MetricGroup } from './metric-groups';
import { FIGURE } from './style';

const LINE_H = 20;

export function undrawnFigure(groups: readonly MetricGroup[], cap: number): Figure {
  const lines = groups.map((g) => `${g.name}: ${g.keys.join(', ')}`);
  const h = 40 + lines.length * LINE_H;
  return {
    name: 'metrics-not-drawn',
    title: `${groups.length} more metric${groups.length === 1 ? '' : 's'}, not drawn (a report draws at most ${cap} charts)`,
    width: FIGURE.width,
    height: Math.max(FIGURE.height, 56 + h + 20),
    panels: [
      {
        kind: 'note',
        box: { x: 24, y: 56, w: FIGURE.width - 48, h },
        title: 'Name: keys (MLflow has every one of them; --metrics-format decides what is parsed)',
        lines,
      },
    ],
  };
}
