// A fresh run dir from real torch (the seed's polynomial DDP, 3 gloo ranks on 127.0.0.1), rendered and checked.
// Python: $TRACK_LAUNCH_TEST_PYTHON, default /usr/bin/python3 (torch 1.13 CPU; not a pyenv python without torch).
import { spawnSync } from 'child_process';
import * as path from 'path';
import { renderReport } from '../../../reports/report';
import { pdfPages, pdfText, pngInk, pngSize, tmpDir } from '../../unit/reports/helpers/check-output';

jest.setTimeout(300_000);

const PYTHON = process.env.TRACK_LAUNCH_TEST_PYTHON ?? '/usr/bin/python3';
const SCRIPT = path.join(__dirname, '..', '..', 'fixtures', 'runs', 'make_polynomial_run.py');

describe('report of a real polynomial job', () => {
  let runDir: string;
  beforeAll(() => {
    runDir = path.join(tmpDir('torch'), 'run');
    const r = spawnSync(PYTHON, [SCRIPT, runDir, '--ranks', '3', '--epochs', '1000', '--every', '10'], {
      encoding: 'utf8',
    });
    if (r.status !== 0) {
      throw new Error(
        `${PYTHON} ${SCRIPT} failed (exit ${r.status}${r.error ? `, ${r.error.message}` : ''}); it needs torch and numpy.\n${r.stderr.slice(-2000)}`,
      );
    }
  });

  it('renders the loss of 3 ranks, the evaluation, stragglers and the summary', async () => {
    const { files, notes } = await renderReport(runDir);
    expect(notes).toEqual([expect.stringMatching(/^No resource samples in .*: no resource pages/)]); // torch directly: no sampler
    expect(files.map((f) => path.relative(runDir, f))).toEqual([
      'reports/report.pdf',
      'reports/report.html',
      'reports/summary.png',
      'reports/loss.png',
      'reports/evaluation.png',
      'reports/stragglers.png',
    ]);
    expect(pdfPages(files[0])).toBe(4);
    const text = pdfText(files[0]);
    for (const s of [
      'loss (log scale)',
      'step',
      'rank 0 (',
      'rank 1 (',
      'rank 2 (',
      'mean over ranks',
      'Model output g(x)',
      'Error |f(x)-g(x)|',
      'gloo',
    ]) {
      expect(text).toContain(s);
    }
    for (const png of files.slice(2)) {
      const { width, height } = pngSize(png);
      expect(width).toBe(2000);
      // the summary page grows with its table and notes instead of cutting them off
      if (path.basename(png) === 'summary.png') expect(height).toBeGreaterThanOrEqual(1120);
      else expect(height).toBe(1120);
      const { ink, transparent } = await pngInk(png);
      expect(transparent).toBe(false);
      expect(ink).toBeGreaterThan(0.01);
    }
  });
});
