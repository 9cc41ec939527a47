// The report's speed work (issue: 64 ranks x 100k points in 5 s) must not change what is drawn: charts built
// once for PDF and PNG, fewer points per line with many ranks.
import * as fs from 'fs';
import * as path from 'path';
import { loadReportData } from '../../../reports/load/run-dir';
import type { Panel } from '../../../reports/model';
import { writeFigures } from '../../../reports/render/output';
import { reportFigures } from '../../../reports/specs/figures';
import { LINE_POINTS, MANY_RANK_POINTS } from '../../../reports/specs/style';
import { syntheticReportData } from '../../../bench/synthetic-report';
import { POLYNOMIAL_3, tmpDir } from './helpers/check-output';

jest.setTimeout(60_000);

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
