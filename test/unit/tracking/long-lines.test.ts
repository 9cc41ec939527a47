// Lines longer than a read: cut at MAX_LINE (counted, warned), looked through in bounded windows,
// never re-read from their start once looked at, the offset past them when the newline comes; the
// reports' reading (readRunMetrics) cuts them the same way.
import { promises as fs } from 'fs';
import * as path from 'path';
import { SpoolStage } from '../../../tracking-plugin/ingest/spool-stage';
import { decodeRecords } from '../../../tracking-plugin/ingest/records';
import { MAX_LINE } from '../../../tracking-plugin/logs/lines';
import { CHUNK } from '../../../tracking-plugin/logs/reader';
import { readRunMetrics } from '../../../tracking-plugin/series';
import { jobRecord, makeRunDir, writeJob } from './fixture';

const metric = (step: number, v: number) => JSON.stringify({ track_launch: 1, step, metrics: { loss: v } });

test('a line longer than a read waits for its newline without being read again, then is cut', async () => {
  const dir = await makeRunDir();
  const job = jobRecord({}, 1);
  await writeJob(dir, job);
  const out = path.join(dir, 'logs', 'rank-0.out');
  const long = CHUNK + (5 << 20); // longer than one read
  await fs.writeFile(out, `${metric(0, 1)}\n`);
  await fs.appendFile(out, Buffer.alloc(long, 'z'));
  await fs.writeFile(`${out}.ts`, '1764669000.5\n1764669001.5\n1764669002.5\n');
  const s = await SpoolStage.open(dir, job, 'jsonl');
  await s.step(job, false, Date.now(), 60_000);
  const cur = s.state.ranks['0'];
  expect([cur.points, cur.out, cur.scan]).toEqual([1, metric(0, 1).length + 1, long]);
  // the bytes it looked through are not looked at again: a newline put among them now is not seen
  const fh = await fs.open(out, 'r+');
  await fh.write('\n', cur.out + CHUNK + 1000);
  await fh.close();
  await fs.appendFile(out, `\n${metric(1, 2)}\n`);
  await s.step(job, false, Date.now(), 60_000);
  const after = s.state.ranks['0'];
  expect([after.points, after.cut, after.skipped, after.scan, after.lines]).toEqual([2, 1, 1, undefined, 3]);
  expect(after.out).toBe((await fs.stat(out)).size);
  expect(s.warnings).toEqual([expect.stringContaining(`1 line longer than ${MAX_LINE} bytes`)]);
  const points = decodeRecords(await fs.readFile(path.join(dir, 'tracking', 'spool', 'rank-0.jsonl')), 0).map(
    (r) => [r.point.step, r.point.value, r.point.timestamp],
  );
  expect(points).toEqual([
    [0, 1, 1764669000500],
    [1, 2, 1764669002500],
  ]);
  const [series] = await readRunMetrics(dir, { format: 'jsonl' });
  expect(series.points.map((p) => [p.step, p.value, p.timestamp])).toEqual(points);
  expect(series.skipped).toBe(2); // reading the whole log anew, it sees the newline put in later
  await fs.rm(dir, { recursive: true });
});

test('a cut line that parses keeps its first MAX_LINE bytes; a long last line of an ended job is taken', async () => {
  const dir = await makeRunDir();
  const job = { ...jobRecord({}, 1), state: { name: 'COMPLETED' as const, ended_at: 1764669100 } };
  await writeJob(dir, job);
  const out = path.join(dir, 'logs', 'rank-0.out');
  // a regex line whose metric is at its start and whose tail goes on past MAX_LINE
  await fs.writeFile(out, `it=3 loss=0.5 ${'#'.repeat(2 * MAX_LINE)}\nit=4 loss=0.25 ${'#'.repeat(CHUNK)}`);
  await fs.writeFile(`${out}.ts`, '1764669000.5\n');
  const format = 'regex:it=(?<step>\\d+) loss=(?<loss>[0-9.]+)';
  const s = await SpoolStage.open(dir, job, format);
  await s.step(job, true, Date.now(), 60_000);
  expect([s.state.ranks['0'].points, s.state.ranks['0'].cut, s.state.ranks['0'].out]).toEqual([
    2,
    2,
    (await fs.stat(out)).size,
  ]);
  const [series] = await readRunMetrics(dir, { format });
  expect(series.points.map((p) => [p.step, p.value, p.timestamp])).toEqual([
    [3, 0.5, 1764669000500],
    [4, 0.25, 1764669000500], // no time of its own: the line before it's
  ]);
  await fs.rm(dir, { recursive: true });
});
