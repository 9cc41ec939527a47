// 64 ranks x 100k points render within a memory bound: a child process with a 512 MB V8 heap limit (so a leak
// or an unbounded series fails it with "heap out of memory") and a peak RSS under 1 GiB. Time is not asserted
// here; the benchmark measures it.
import { spawnSync } from 'child_process';
import * as path from 'path';
import { pdfPages, pngSize, tmpDir } from './helpers/check-output';

jest.setTimeout(180_000);

it('renders 64 ranks x 100k points under 512 MB heap and 1 GiB RSS', () => {
  const out = tmpDir('synthetic');
  const child = spawnSync(
    process.execPath,
    [
      '--max-old-space-size=512',
      '-r',
      path.join(__dirname, 'helpers', 'ts-register.js'),
      path.join(__dirname, 'helpers', 'render-synthetic.ts'),
      out,
      '64',
      '100000',
    ],
    { encoding: 'utf8' },
  );
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  const result = JSON.parse(child.stdout) as { files: string[]; peakRssMb: number; ms: number };
  expect(result.files.map((f) => path.basename(f))).toEqual([
    'report.pdf',
    'summary.png',
    'loss.png',
    'stragglers.png',
  ]);
  expect(result.peakRssMb).toBeLessThan(1024);
  expect(pdfPages(result.files[0])).toBe(3);
  expect(pngSize(result.files[2])).toEqual({ width: 2000, height: 1120 });
});
