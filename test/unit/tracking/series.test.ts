import { promises as fs } from 'fs';
import * as path from 'path';
import { readRunMetrics } from '../../../tracking-plugin/series';
import { appendLines, jobRecord, makeRunDir, polyLog, writeFacts, writeJob } from './fixture';

describe('readRunMetrics', () => {
  it('reads every rank of the polynomial example with .out.ts times', async () => {
    const dir = await makeRunDir();
    await writeJob(dir, jobRecord());
    for (const r of [0, 1, 2]) await appendLines(dir, r, polyLog(r), 1764669000);
    await writeFacts(dir, 1);
    await fs.appendFile(path.join(dir, 'logs', 'rank-2.out'), 'epoch 900, loss = 0.1'); // partial line waits
    const series = await readRunMetrics(dir);
    expect(series.map((s) => [s.rank, s.host, s.points.length, s.skipped])).toEqual([
      [0, 'n1', 10, 2],
      [1, 'n2', 10, 1],
      [2, 'n3', 10, 1],
    ]);
    expect(series[0].points[1]).toEqual({ key: 'loss', value: 1 / 101, step: 100, timestamp: 1764669002123 });
    expect(series[1].points[0].timestamp).toBe(1764669001123);
    // the points as columns
    const c = series[0].columns;
    expect([c.length, c.key(1), c.values[1], c.steps[1], c.timestamps[1]]).toEqual([
      10,
      'loss',
      1 / 101,
      100,
      1764669002123,
    ]);
  });

  it('without .out.ts, lines take the rank start (never the log mtime); honours an explicit format', async () => {
    const dir = await makeRunDir();
    await appendLines(dir, 0, ['{"track_launch":1,"step":2,"metrics":{"a":1}}', 'x=5'], 0, { ts: false });
    await writeFacts(dir, 0); // started_at 1764669001
    await fs.utimes(path.join(dir, 'logs', 'rank-0.out'), 1, 1); // a file server clock that is far off
    const [s] = await readRunMetrics(dir);
    expect(s.points).toEqual([{ key: 'a', value: 1, step: 2, timestamp: 1764669001000 }]);
    const [r] = await readRunMetrics(dir, { format: 'regex:x=(?<x>\\d+)' });
    expect(r.points).toEqual([{ key: 'x', value: 5, step: 0, timestamp: 1764669001000 }]);
    expect(r.skipped).toBe(1);
  });

  it('a line without a time takes the time of the line before it; no facts: the reading clock', async () => {
    const dir = await makeRunDir();
    const lines = [0, 1, 2].map((i) => `{"track_launch":1,"step":${i},"metrics":{"a":${i}}}`);
    await fs.mkdir(path.join(dir, 'logs'), { recursive: true });
    await fs.writeFile(path.join(dir, 'logs', 'rank-0.out'), lines.join('\n') + '\n');
    await fs.writeFile(path.join(dir, 'logs', 'rank-0.out.ts'), '1764669001.5\ngarbage\n');
    const before = Date.now();
    const [s] = await readRunMetrics(dir);
    expect(s.points.map((p) => p.timestamp)).toEqual([1764669001500, 1764669001500, 1764669001500]);
    await fs.writeFile(path.join(dir, 'logs', 'rank-0.out.ts'), '');
    const [t] = await readRunMetrics(dir);
    const ts = t.points.map((p) => p.timestamp);
    expect(new Set(ts).size).toBe(1);
    expect(ts[0]).toBeGreaterThanOrEqual(before);
    expect(ts[0]).toBeLessThanOrEqual(Date.now());
  });

  it('refuses a job.json of another version', async () => {
    const dir = await makeRunDir();
    await fs.writeFile(path.join(dir, 'job.json'), JSON.stringify({ version: 2 }));
    await expect(readRunMetrics(dir)).rejects.toThrow(/version 2; this track-launch reads version 1/);
    await expect(readRunMetrics(path.join(dir, 'nope'))).rejects.toThrow(/does not exist/);
  });
});
