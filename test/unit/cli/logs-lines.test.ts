// logs' lines are what a terminal shows: \n, \r\n and a lone \r end a line (the same lines ingestion
// parses); --rank stays byte-exact; each part of a row keeps the row's time.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import fc from 'fast-check';
import { formatLine, lineText } from '../../../cli/logs/format';
import type { LogLine } from '../../../cli/logs/line';
import { LineSource, terminalLines } from '../../../cli/logs/line-source';
import { MergedLogs } from '../../../cli/logs/merged';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-unit-logs-lines-'));
  fs.mkdirSync(path.join(dir, 'logs'), { mode: 0o700 });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
const write = (name: string, data: string | Buffer) =>
  fs.appendFileSync(path.join(dir, 'logs', name), data, { mode: 0o600 });
const source = () =>
  new LineSource(dir, 0, 'stdout', path.join(dir, 'logs/rank-0.out'), path.join(dir, 'logs/rank-0.out.ts'));

async function all(src: LineSource, final: boolean): Promise<LogLine[]> {
  const got: LogLine[] = [];
  for (let l = await src.next(final); l; l = await src.next(final)) got.push(l);
  return got;
}

test("a progress bar: each \\r-ended update is a line, with its row's time", async () => {
  write('rank-0.out', 'step 1\rstep 2\rstep 3\ndone\r\n');
  write('rank-0.out.ts', '10\n11\n');
  const lines = await all(source(), true);
  expect(lines.map(lineText)).toEqual(['step 1', 'step 2', 'step 3', 'done']);
  expect(lines.map((l) => l.time)).toEqual([10, 10, 10, 11]);
  // labelled: one line each (another rank's line may follow); raw: the bytes as written
  expect(lines.map((l) => formatLine(l, 'labelled').toString()).join('')).toBe(
    '[rank 0] step 1\n[rank 0] step 2\n[rank 0] step 3\n[rank 0] done\r\n',
  );
  expect(Buffer.concat(lines.map((l) => formatLine(l, 'raw'))).toString()).toBe(
    'step 1\rstep 2\rstep 3\ndone\r\n',
  );
  expect(lines.map((l) => JSON.parse(formatLine(l, 'json').toString()).text)).toEqual([
    'step 1',
    'step 2',
    'step 3',
    'done',
  ]);
});

test('a row still being written waits for its \\n, a \\r at the end of a read too; the end of the job takes it', async () => {
  write('rank-0.out', 'a\rb\r');
  const src = source();
  expect(await all(src, false)).toEqual([]);
  write('rank-0.out', '\nc\r');
  expect((await all(src, false)).map(lineText)).toEqual(['a', 'b']);
  expect((await all(src, true)).map((l) => l.bytes.toString())).toEqual(['c\r']);
});

test('--tail counts terminal lines', async () => {
  write('rank-0.out', '1\r2\r3\n4\n');
  write('rank-0.out.ts', '1\n2\n');
  const logs = new MergedLogs(dir, { streams: ['stdout'] });
  expect((await logs.tail(3, true)).map(lineText)).toEqual(['2', '3', '4']);
});

test("terminalLines: the parts are the row again, each ends at a lone \\r or the row's end", () => {
  fc.assert(
    fc.property(fc.stringOf(fc.constantFrom('a', '\r', '\n', 'é'), { maxLength: 30 }), (s) => {
      const row = Buffer.from(s);
      const parts = terminalLines(row);
      expect(Buffer.concat(parts).equals(row)).toBe(true);
      // independently: a lone \r is one not followed by \n
      const lone = [...s].filter((c, i) => c === '\r' && i + 1 < s.length && s[i + 1] !== '\n').length;
      expect(parts.length).toBe(lone + 1);
    }),
  );
});
