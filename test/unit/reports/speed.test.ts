// The report's speed work (issue: 64 ranks x 100k points in 5 s) must not change what is drawn: long lines
// stroked in pieces on PNGs, charts built once for PDF and PNG, fewer points per line with many ranks.
import * as fs from 'fs';
import * as path from 'path';
import type { CanvasRenderingContext2D } from 'canvas';
import { loadReportData } from '../../../reports/load/run-dir';
import type { Panel } from '../../../reports/model';
import { panelCanvas, SPLIT_SEGMENTS } from '../../../reports/render/panel-canvas';
import { writeFigures } from '../../../reports/render/output';
import { reportFigures } from '../../../reports/specs/figures';
import { LINE_POINTS, MANY_RANK_POINTS } from '../../../reports/specs/style';
import { syntheticReportData } from '../../../bench/synthetic-report';
import { POLYNOMIAL_3, tmpDir } from './helpers/check-output';

jest.setTimeout(60_000);

type Call = [string, ...unknown[]];

/** A page context that records the calls a chart makes on it (with strokes carrying the path's points). */
function recordingPage(style: { strokeStyle?: string; dash?: readonly number[] } = {}) {
  const calls: Call[] = [];
  let path: [number, number][][] = [];
  const page = {
    strokeStyle: style.strokeStyle ?? '#1f77b4',
    globalAlpha: 1,
    globalCompositeOperation: 'source-over',
    getLineDash: () => [...(style.dash ?? [])],
    setTransform: (...a: number[]) => calls.push(['setTransform', ...a]),
    beginPath: () => {
      path = [];
      calls.push(['beginPath']);
    },
    moveTo: (x: number, y: number) => path.push([[x, y]]),
    lineTo: (x: number, y: number) =>
      path.length ? path[path.length - 1].push([x, y]) : path.push([[x, y]]),
    stroke: () => calls.push(['stroke', path.map((p) => p.slice())]),
    fill: () => calls.push(['fill', path.map((p) => p.slice())]),
    rect: (...a: number[]) => calls.push(['rect', ...a]),
  };
  return { page: page as unknown as CanvasRenderingContext2D, calls };
}

const zigzag = (n: number): [number, number][] => Array.from({ length: n }, (_, i) => [i, i % 2 ? 10 : 0]);
const box = { x: 0, y: 0, w: 100, h: 100 };

function traceLine(ctx: CanvasRenderingContext2D, pts: [number, number][]): void {
  ctx.beginPath();
  ctx.moveTo(...pts[0]);
  for (const p of pts.slice(1)) ctx.lineTo(...p);
}

describe('long lines stroked in pieces (PNG pages)', () => {
  const strokes = (calls: Call[]) => calls.filter((c) => c[0] === 'stroke').map((c) => c[1] as number[][][]);

  it('strokes every segment and every join, in pieces that overlap by one segment', () => {
    const { page, calls } = recordingPage();
    const ctx = panelCanvas(page, box, 2, true).getContext('2d');
    const pts = zigzag(1000);
    traceLine(ctx, pts);
    ctx.stroke();
    const pieces = strokes(calls).map((s) => {
      expect(s).toHaveLength(1); // one subpath a stroke
      return s[0];
    });
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((p) => p.length <= SPLIT_SEGMENTS + 1)).toBe(true);
    // each piece is a run of the line's points; the next one starts at the previous one's last segment
    const starts = pieces.map((p) => pts.findIndex(([x]) => x === p[0][0]));
    pieces.forEach((p, i) => expect(p).toEqual(pts.slice(starts[i], starts[i] + p.length)));
    for (let i = 1; i < pieces.length; i++) expect(starts[i]).toBe(starts[i - 1] + pieces[i - 1].length - 2);
    expect(starts[0]).toBe(0);
    expect(starts[starts.length - 1] + pieces[pieces.length - 1].length).toBe(pts.length);
  });

  it('never ends a piece in a zero-length segment (cairo would draw no join there)', () => {
    const { page, calls } = recordingPage();
    const ctx = panelCanvas(page, box, 2, true).getContext('2d');
    const pts = zigzag(300).flatMap((p): [number, number][] => [p, p]); // every point twice
    traceLine(ctx, pts);
    ctx.stroke();
    for (const [piece] of strokes(calls).slice(0, -1)) {
      const [a, b] = piece.slice(-2);
      expect(a).not.toEqual(b);
    }
  });

  it('strokes dashed, translucent and short lines whole, and PDF pages never split', () => {
    for (const [style, split] of [
      [{ dash: [6, 4] }, true],
      [{ strokeStyle: 'rgba(0, 0, 0, 0.50)' }, true],
      [{}, false],
    ] as const) {
      const { page, calls } = recordingPage(style);
      const ctx = panelCanvas(page, box, 2, split).getContext('2d');
      traceLine(ctx, zigzag(1000));
      ctx.stroke();
      expect(strokes(calls)).toEqual([[zigzag(1000)]]);
    }
    const { page, calls } = recordingPage();
    const ctx = panelCanvas(page, box, 2, true).getContext('2d');
    traceLine(ctx, zigzag(10));
    ctx.stroke();
    expect(strokes(calls)).toEqual([[zigzag(10)]]);
  });

  it('gives the page the whole path before any other call: a fill after a stroke fills all of it', () => {
    const { page, calls } = recordingPage();
    const ctx = panelCanvas(page, box, 2, true).getContext('2d');
    traceLine(ctx, zigzag(1000));
    ctx.stroke();
    ctx.fill();
    expect(calls[calls.length - 1]).toEqual(['fill', [zigzag(1000)]]);
    // and a transform change mid-path sends what came before it, under the old transform
    traceLine(ctx, zigzag(3));
    ctx.setTransform(1, 0, 0, 1, 5, 5);
    ctx.lineTo(7, 7);
    ctx.stroke();
    expect(calls[calls.length - 1]).toEqual(['stroke', [[...zigzag(3), [7, 7]]]]);
  });
});

describe('PDF and PNG together', () => {
  it('draws the same PNGs as PNG alone, from charts built once', async () => {
    const { figures } = reportFigures(await loadReportData(POLYNOMIAL_3));
    const both = tmpDir('both');
    const png = tmpDir('png');
    const files = writeFigures(figures, both, new Set(['pdf', 'png']), 'report.pdf');
    expect(files.map((f) => path.basename(f))).toEqual([
      'report.pdf',
      'summary.png',
      'loss.png',
      'evaluation.png',
      'stragglers.png',
    ]);
    writeFigures(figures, png, new Set(['png']), 'report.pdf');
    for (const f of files.slice(1))
      expect(fs.readFileSync(f).equals(fs.readFileSync(path.join(png, path.basename(f))))).toBe(true);
  });
});

describe('points per line', () => {
  type Chart = Extract<Panel, { kind: 'chart' }>;
  const lengths = (p: Panel) => (p as Chart).config.data.datasets.map((d) => d.data.length);

  it('keeps LINE_POINTS per rank up to 16 ranks, MANY_RANK_POINTS above; band and mean always LINE_POINTS', () => {
    for (const [ranks, perRank] of [
      [16, LINE_POINTS],
      [17, MANY_RANK_POINTS],
    ]) {
      const { figures } = reportFigures(syntheticReportData({ ranks, points: 5000 }));
      const loss = lengths(figures[1].panels[0]);
      expect(loss).toEqual([...Array(ranks).fill(perRank), LINE_POINTS, LINE_POINTS, LINE_POINTS]); // band edges, mean
      expect(lengths(figures[2].panels[0])).toEqual(Array(ranks).fill(perRank)); // stragglers' lines
    }
  });

  it('draws lines with round joins: no miter spikes past the data at a noisy line`s sharp turns', () => {
    const { figures } = reportFigures(syntheticReportData({ ranks: 2, points: 50 }));
    for (const d of (figures[1].panels[0] as Chart).config.data.datasets)
      expect((d as { borderJoinStyle?: string }).borderJoinStyle).toBe('round');
  });
});
