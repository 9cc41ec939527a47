// Figure file names made from metric names: bounded and unique for any name, of any length and any
// characters (a 240-character metric name once made a file name the file system refused).
import { promises as fsp } from 'fs';
import * as fs from 'fs';
import * as path from 'path';
import { renderReport } from '../../../reports';
import { MAX_FILE_NAME, uniqueNames } from '../../../reports/specs/figures';
import type { Figure } from '../../../reports/model';
import { jobRecord, makeRunDir, writeJob } from '../tracking/fixture';

jest.setTimeout(120_000);

const long = (n: number, end = '') => 'encoder.block.' + 'x'.repeat(n - 14 - end.length) + end;

test('renders a run with 240- and 300-character metric names, and two long names that differ at the end', async () => {
  const dir = await makeRunDir('tl-report-long-');
  await writeJob(dir, jobRecord({}, 1));
  const keys = [long(240), long(300), long(260, '.weight.grad_norm'), long(260, '.bias.grad_norm')];
  const lines = [0, 1, 2].map((step) =>
    JSON.stringify({ track_launch: 1, step, metrics: Object.fromEntries(keys.map((k, i) => [k, step + i])) }),
  );
  await fsp.writeFile(path.join(dir, 'logs', 'rank-0.out'), lines.join('\n') + '\n', { mode: 0o600 });
  const out = path.join(dir, 'out');
  const r = await renderReport(dir, { out, formats: ['png'], metricsFormat: 'jsonl' });
  const pngs = fs.readdirSync(out).filter((f) => f.startsWith('metric-'));
  expect(pngs.length).toBe(keys.length); // one page each: none merged, none lost
  for (const f of pngs) expect(f.length).toBeLessThanOrEqual(MAX_FILE_NAME + '.png'.length);
  expect(r.files.filter((f) => path.basename(f).startsWith('metric-')).length).toBe(keys.length);
});

const fig = (name: string): Figure => ({ name, title: '', width: 1, height: 1, panels: [] });

test('file names: bounded, made of safe characters, unique whatever the names (case apart too)', () => {
  const names = [
    'metric-a/b',
    'metric-a_b',
    'metric-a_b-2', // a name that a number would otherwise give again
    'metric-A_B',
    'metric-' + 'y'.repeat(500),
    'metric-' + 'y'.repeat(500) + 'z',
    'metric-../../etc',
    'metric-\u0000\n€',
  ];
  const got = uniqueNames(names.map(fig)).map((f) => f.name);
  expect(new Set(got.map((n) => n.toLowerCase())).size).toBe(names.length);
  for (const n of got) {
    expect(n.length).toBeLessThanOrEqual(MAX_FILE_NAME);
    expect(n).toMatch(/^[A-Za-z0-9_.-]+$/);
  }
  expect(got.slice(0, 3)).toEqual(['metric-a_b', 'metric-a_b-3', 'metric-a_b-2']);
  expect(uniqueNames(names.map(fig)).map((f) => f.name)).toEqual(got); // stable
});
