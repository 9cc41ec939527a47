// Renders the committed polynomial run and checks the files with real tools (poppler, a PNG decoder).
import * as fs from 'fs';
import * as path from 'path';
import { renderComparison, renderReport } from '../../../reports/report';
import {
  pdfPages,
  pdfText,
  pngInk,
  pngSize,
  POLYNOMIAL_1,
  POLYNOMIAL_3,
  tmpDir,
  FIXTURE_HOST,
} from './helpers/check-output';

jest.setTimeout(60_000);

describe('renderReport on the polynomial run', () => {
  let out: string;
  let files: string[];
  beforeAll(async () => {
    out = tmpDir('report');
    ({ files } = await renderReport(POLYNOMIAL_3, { out }));
  });

  it('writes one PDF, report.html and a PNG per figure, PDF first', () => {
    expect(files.map((f) => path.relative(out, f))).toEqual([
      'report.pdf',
      'report.html',
      'summary.png',
      'loss.png',
      'evaluation.png',
      'stragglers.png',
    ]);
  });

  it('writes a 4-page PDF whose text is selectable: titles, axis titles, legends', () => {
    const pdf = path.join(out, 'report.pdf');
    expect(pdfPages(pdf)).toBe(4);
    const text = pdfText(pdf);
    for (const s of [
      'Job summary',
      'COMPLETED, exit code 0',
      'loss (log scale)',
      'step',
      `rank 0 (${FIXTURE_HOST})`,
      `rank 2 (${FIXTURE_HOST})`,
      'mean over ranks',
      'Function f(x)',
      'Model output g(x)',
      'Training samples',
      'Error |f(x)-g(x)|',
      '1000 epochs of training',
      'seconds per logged step',
      'median s/step',
      'final loss',
    ]) {
      expect(text).toContain(s);
    }
  });

  it('draws PNGs at 2x on white, with ink', async () => {
    for (const f of files.filter((f) => f.endsWith('.png'))) {
      const { width, height } = pngSize(f);
      expect(width).toBe(2000);
      // the summary page grows with its table and notes instead of cutting them off
      if (path.basename(f) === 'summary.png') expect(height).toBeGreaterThanOrEqual(1120);
      else expect(height).toBe(1120);
      const { ink, transparent } = await pngInk(f);
      expect(transparent).toBe(false);
      expect(ink).toBeGreaterThan(0.01);
      expect(ink).toBeLessThan(0.6);
    }
  });

  it('writes only what --format asks for', async () => {
    const only = tmpDir('png-only');
    const r = await renderReport(POLYNOMIAL_3, { out: only, formats: ['png'] });
    expect(r.files.every((f) => f.endsWith('.png'))).toBe(true);
    expect(fs.readdirSync(only).sort()).toEqual([
      'evaluation.png',
      'loss.png',
      'stragglers.png',
      'summary.png',
    ]);
  });
});

describe('a hand-made run dir with only rank logs', () => {
  it('renders the loss page and says what is missing', async () => {
    const dir = tmpDir('logs-only');
    fs.mkdirSync(path.join(dir, 'logs'));
    for (const r of [0, 1, 2])
      fs.copyFileSync(
        path.join(POLYNOMIAL_3, 'logs', `rank-${r}.out`),
        path.join(dir, 'logs', `rank-${r}.out`),
      );
    const { files, notes } = await renderReport(dir, { out: path.join(dir, 'reports'), formats: ['pdf'] });
    expect(pdfPages(files[0])).toBe(3); // summary, loss, stragglers
    expect(notes.join('\n')).toMatch(/No line times/);
    expect(notes.join('\n')).toMatch(/eval\/evaluation\.json/);
    expect(pdfText(files[0])).toContain('mean over ranks');
  });
});

describe('renderComparison', () => {
  it('draws 1 node x 1 rank against 1 node x 3 ranks on one page', async () => {
    const out = tmpDir('compare');
    const r = await renderComparison([POLYNOMIAL_1, POLYNOMIAL_3], { out });
    expect(r.files.map((f) => path.basename(f))).toEqual(['compare.pdf', 'compare.html', 'compare.png']);
    expect(pdfPages(r.files[0])).toBe(1);
    const text = pdfText(r.files[0]);
    expect(text).toContain('loss against wall time');
    expect(text).toContain('seconds since the first logged step');
    expect(text).toMatch(/\(1 node, 3 ranks\)/);
    expect((await pngInk(r.files[2])).ink).toBeGreaterThan(0.01);
  });
});
