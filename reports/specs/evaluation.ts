// The evaluation page: f(x), g(x) and the training samples, the training range shaded; and |f(x) - g(x)|.
import type { EvaluationData } from '../../core';
import type { Figure } from '../model';
import { axis, chartPanel, FIGURE, layout, legend, lineStyle, titleOption, xBand } from './style';

const BAND = 'rgba(50, 205, 50, 0.15)'; // matplotlib limegreen at alpha 0.15, as in the seed
// Legend marks as in matplotlib: a patch for the band, a line for curves, a dot for the samples.
const pointLegend = {
  ...legend(),
  labels: { usePointStyle: true, pointStyleWidth: 22, boxHeight: 9, font: { size: 11 } },
};
const xy = (x: number[], y: number[]) => x.map((v, i) => ({ x: v, y: y[i] }));

/** The training range: as written, else the span of the training samples. */
function trainRange(e: EvaluationData): [number, number] | undefined {
  if (e.train_range) return e.train_range;
  if (e.train_x && e.train_x.length > 0) return [Math.min(...e.train_x), Math.max(...e.train_x)];
  return undefined;
}

export function evaluationFigure(e: EvaluationData): Figure {
  const range = trainRange(e);
  const band = range ? [xBand(range[0], range[1], BAND)] : [];
  const bandLegend = range
    ? [
        {
          label: 'Sample space (training range)',
          data: [],
          backgroundColor: 'rgba(50, 205, 50, 0.35)',
          borderColor: 'rgba(50, 205, 50, 0.35)',
          pointStyle: 'rect' as const,
        },
      ]
    : [];
  const samples =
    e.train_x && e.train_y
      ? [
          {
            label: 'Training samples',
            data: xy(e.train_x, e.train_y),
            showLine: false,
            pointRadius: 3,
            pointStyle: 'circle' as const,
            borderColor: 'royalblue',
            backgroundColor: 'royalblue',
          },
        ]
      : [];
  const error = e.x.map((_, i) => Math.abs(e.f[i] - e.g[i]));
  const heading = e.epochs !== undefined ? `${e.epochs} epochs of training` : 'Model output after training';
  return {
    name: 'evaluation',
    title: `Evaluation: ${e.title ?? 'f(x) and the model g(x)'}`,
    ...FIGURE,
    panels: [
      chartPanel(layout.left(), {
        type: 'line',
        data: {
          datasets: [
            ...bandLegend,
            { label: 'Function f(x)', data: xy(e.x, e.f), ...lineStyle('royalblue', 1) },
            { label: 'Model output g(x)', data: xy(e.x, e.g), ...lineStyle('darkorange', 2) },
            ...samples,
          ],
        },
        options: {
          plugins: { legend: pointLegend, title: titleOption(heading) },
          scales: { x: axis('x'), y: axis('y') },
        },
        plugins: band,
      }),
      chartPanel(layout.right(), {
        type: 'line',
        data: {
          datasets: [{ label: 'Error |f(x)-g(x)|', data: xy(e.x, error), ...lineStyle('firebrick', 2) }],
        },
        options: {
          plugins: {
            legend: pointLegend,
            title: titleOption('Absolute difference between prediction and actual function'),
          },
          scales: { x: axis('x'), y: axis('|f(x) - g(x)|') },
        },
        plugins: band,
      }),
    ],
  };
}

/** The note a report carries instead of the evaluation page when the script wrote no evaluation data. */
export const EVALUATION_HOWTO = [
  'The training script wrote no eval/evaluation.json, so there is no evaluation figure.',
  'To get one, have rank 0 write, at the end of training, into $TRACK_LAUNCH_RUN_DIR/eval/evaluation.json:',
  '{"version": 1, "title": "...", "epochs": N, "x": [...], "f": [...], "g": [...],',
  ' "train_x": [...], "train_y": [...], "train_range": [low, high]}',
  'x, f (the true function) and g (the model output) have the same length; the train_* fields are optional.',
  'See docs/reports.md, "Evaluation data".',
];
