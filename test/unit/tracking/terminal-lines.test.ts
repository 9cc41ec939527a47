// A line is what a terminal shows: \n, \r\n and a lone \r end a line for parsing (a progress bar's
// updates, print(..., end="\r")); each part gives its points with its row's time, and each part that
// gives none is counted as skipped. The log and the cursor stay in rows (what \n ends).
import fc from 'fast-check';
import { promises as fs } from 'fs';
import * as path from 'path';
import { spoolRank } from '../../../tracking-plugin/ingest/spool';
import { newCursor } from '../../../tracking-plugin/ingest/state';
import { PointColumns } from '../../../tracking-plugin/logs/columns';
import { extractPoints } from '../../../tracking-plugin/logs/extract';
import { LineBatch } from '../../../tracking-plugin/logs/lines';
import { parserFor } from '../../../tracking-plugin/parsers';
import { makeRunDir, polyLine } from './fixture';

const json = (step: number, loss: number) => JSON.stringify({ track_launch: 1, step, metrics: { loss } });

function extract(format: string, log: string, times: number[], final = false) {
  const cols = new PointColumns();
  const batch = new LineBatch(Buffer.from(log), 0, final);
  const ex = extractPoints(parserFor(format), batch, times, {}, cols);
  return { points: cols.toPoints().map((p) => [p.key, p.step, p.value, p.timestamp]), skipped: ex.skipped };
}

test("jsonl records separated by \\r: every record gives its points, with its row's time", () => {
  const log = [json(1, 0.5), json(2, 0.25), json(3, 0.125)].join('\r') + '\r\n' + json(4, 1) + '\n';
  expect(extract('jsonl', log, [100, 200])).toEqual({
    points: [
      ['loss', 1, 0.5, 100],
      ['loss', 2, 0.25, 100],
      ['loss', 3, 0.125, 100],
      ['loss', 4, 1, 200],
    ],
    skipped: 0,
  });
});

test('polynomial lines separated by \\r: every one, not only the first of the row', () => {
  const log = [polyLine(1, 0, 1, 0.5), polyLine(2, 0, 1, 0.25), polyLine(3, 0, 1, 0.125)].join('\r') + '\n';
  expect(extract('polynomial', log, [7]).points).toEqual([
    ['loss', 1, 0.5, 7],
    ['loss', 2, 0.25, 7],
    ['loss', 3, 0.125, 7],
  ]);
});

test('each part that gives no point is counted; blank parts are not', () => {
  const log = `${json(1, 1)}\r 42%|####   | \r\r${json(2, 2)}\rnot a metric\n\r\n`;
  const got = extract('auto', log, [1, 2]);
  expect(got.points.map((p) => p[1])).toEqual([1, 2]);
  expect(got.skipped).toBe(2);
});

test("a progress bar that never ends its line is read when the rank's log ends", () => {
  const bar = [json(1, 1), json(2, 2)].join('\r') + '\r';
  expect(extract('jsonl', bar, [5]).points).toEqual([]); // still being written: waits for its \n
  expect(extract('jsonl', bar, [5], true).points.map((p) => p[1])).toEqual([1, 2]);
});

test('any mix of \\n, \\r\\n and lone \\r gives the points of the lines one at a time', () => {
  const line = fc.oneof(
    fc.tuple(fc.nat(1000), fc.integer({ min: -100, max: 100 })).map(([s, v]) => json(s, v)),
    fc.tuple(fc.nat(1000), fc.nat(7)).map(([e, r]) => polyLine(e, r, 8)),
    fc.constantFrom('', ' 12%|#    |', 'text é'),
  );
  fc.assert(
    fc.property(fc.array(fc.tuple(line, fc.constantFrom('\n', '\r\n', '\r')), { maxLength: 20 }), (ls) => {
      const log = ls.map(([l, end]) => l + end).join('');
      // expected: each line alone, with the time of the row it is in (rows end at \n)
      const rowOf: number[] = [];
      let row = 0;
      for (const [, end] of ls) rowOf.push(end === '\r' ? row : row++);
      const rows = row + 1;
      const times = Array.from({ length: rows }, (_, i) => 1000 + i);
      const want = { points: [] as unknown[], skipped: 0 };
      ls.forEach(([l], i) => {
        const one = extract('auto', l + '\n', [times[rowOf[i]]], true);
        want.points.push(...one.points);
        want.skipped += one.skipped;
      });
      expect(extract('auto', log, times, true)).toEqual(want);
      // the texts of the rows, not through a LineBatch, give the same
      const texts = log.split('\n');
      if (texts[texts.length - 1] === '') texts.pop();
      const cols = new PointColumns();
      const ex = extractPoints(
        parserFor('auto'),
        texts.map((t) => t.replace(/\r$/, '')),
        times,
        {},
        cols,
      );
      expect(cols.toPoints().map((p) => [p.key, p.step, p.value, p.timestamp])).toEqual(want.points);
      expect(ex.skipped).toBe(want.skipped);
    }),
    { numRuns: 300 },
  );
});

test('ingestion: a rank printing records with end="\\r" spools every point, none skipped', async () => {
  const dir = await makeRunDir();
  const log = [json(0, 3), json(1, 2), json(2, 1)].map((l) => l + '\r').join('') + '\n';
  await fs.writeFile(path.join(dir, 'logs', 'rank-0.out'), log);
  await fs.writeFile(path.join(dir, 'logs', 'rank-0.out.ts'), '1764669000.5\n');
  const s = await spoolRank(dir, 0, parserFor('jsonl'), newCursor(), { final: true, now: 0, graceMs: 0 });
  expect(s.points.toPoints().map((p) => [p.step, p.value, p.timestamp])).toEqual([
    [0, 3, 1764669000500],
    [1, 2, 1764669000500],
    [2, 1, 1764669000500],
  ]);
  expect([s.cursor.points, s.cursor.skipped, s.cursor.out]).toEqual([3, 0, Buffer.byteLength(log)]);
});
