// Bounded memory for any line length and log size: a 600 MB line and a 3 GB log are ingested
// (the spool stage), read for reports and streamed as an upload would stream them, in a child process
// whose peak RSS must stay under a fixed bound. The big parts are sparse files of zeros (one
// huge line each, no disk used for them), with real metric lines around them.
import { spawn } from 'child_process';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { endJob, jobRecord, writeFacts, writeJob } from '../../unit/tracking/fixture';
import { compilePlugin } from './helpers';

jest.setTimeout(600_000);
const ROOT = path.resolve(__dirname, '../../..');
const MiB = 1 << 20;
const RSS_LIMIT_MIB = 300;

const metric = (step: number, v: number) => JSON.stringify({ track_launch: 1, step, metrics: { loss: v } });

/** A real line, `zeros` bytes of one huge line (sparse), its newline, a real line. */
async function bigLog(file: string, zeros: number): Promise<number> {
  await fs.writeFile(file, `${metric(0, 0.5)}\n`);
  const head = (await fs.stat(file)).size;
  await fs.truncate(file, head + zeros);
  await fs.appendFile(file, `\n${metric(1, 0.25)}\n`);
  await fs.writeFile(`${file}.ts`, '1764669000.100000\n1764669001.200000\n1764669002.300000\n');
  return (await fs.stat(file)).size;
}

function child(plugin: string, dir: string): Promise<{ code: number | null; out: string }> {
  const core = path.join(path.dirname(path.dirname(plugin)), 'core', 'index.js');
  const code = `(async () => {
    const p = require(${JSON.stringify(plugin)});
    const core = require(${JSON.stringify(core)});
    const dir = ${JSON.stringify(dir)};
    const summary = await p.ingestRunDir(dir, { offline: true });
    const series = (await p.readRunMetrics(dir)).map((s) => ({ points: s.points, skipped: s.skipped }));
    const streamed = [];
    for (const r of [0, 1]) {
      const s = await core.openLogStream(dir, core.runPaths(dir).rankOut(r));
      let n = 0, biggest = 0;
      for await (const c of s.stream) { n += c.length; biggest = Math.max(biggest, c.length); }
      streamed.push({ size: s.size, n, biggest });
    }
    console.log(JSON.stringify({ summary, series, streamed, maxRssKiB: process.resourceUsage().maxRSS }));
  })().catch((e) => { console.error(e.stack); process.exit(1); });`;
  const proc = spawn(process.execPath, ['-e', code]);
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) => proc.on('exit', (c) => resolve({ code: c, out })));
}

test('a 600 MB line and a 3 GB log: every real point, the huge lines cut, peak RSS bounded', async () => {
  const plugin = compilePlugin(path.join(ROOT, 'test', '.artifacts', 'tracking-js'));
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tl-big-log-'));
  try {
    await fs.mkdir(path.join(dir, 'logs'));
    await writeJob(dir, jobRecord({}, 2));
    await endJob(dir, 'COMPLETED');
    for (const r of [0, 1]) await writeFacts(dir, r, 2);
    const sizes = [
      await bigLog(path.join(dir, 'logs', 'rank-0.out'), 600 * 1000 * 1000),
      await bigLog(path.join(dir, 'logs', 'rank-1.out'), 3 * 1000 * 1000 * 1000),
    ];
    expect(sizes[1]).toBeGreaterThan(2 ** 31); // past what one Buffer read or readFile could take
    const r = await child(plugin, dir);
    expect([r.code, r.out.slice(-2000)]).toEqual([0, expect.any(String)]);
    const got = JSON.parse(r.out.trim().split('\n').pop() as string);
    const want = [
      { key: 'loss', value: 0.5, step: 0, timestamp: 1764669000100 },
      { key: 'loss', value: 0.25, step: 1, timestamp: 1764669002300 },
    ];
    for (const rank of [0, 1]) {
      expect(got.series[rank].points).toEqual(want);
      expect(got.series[rank].skipped).toBe(1); // the huge line
    }
    expect(got.summary.pointsSpooled).toBe(2 * 2 + 2 * 3); // ranks' points + mean/min/max per step
    expect(got.summary.warnings).toEqual([
      expect.stringMatching(/rank-0\.out has 1 line longer than 1048576 bytes/),
      expect.stringMatching(/rank-1\.out has 1 line longer than 1048576 bytes/),
    ]);
    const state = JSON.parse(await fs.readFile(path.join(dir, 'tracking', 'state.json'), 'utf8'));
    expect([state.ranks['0'].out, state.ranks['1'].out]).toEqual(sizes);
    expect(got.streamed).toEqual(sizes.map((s) => ({ size: s, n: s, biggest: MiB })));
    expect(got.maxRssKiB / 1024).toBeLessThan(RSS_LIMIT_MIB);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
