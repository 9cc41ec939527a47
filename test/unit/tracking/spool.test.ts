// The spool stage on real files (no network): exactly once across arbitrary write splits and crashes.
import fc from 'fast-check';
import { promises as fs } from 'fs';
import * as path from 'path';
import { SpoolStage } from '../../../tracking-plugin/ingest/spool-stage';
import { decodeRecords } from '../../../tracking-plugin/ingest/records';
import { appendLines, jobRecord, makeRunDir, polyLine, writeFacts, writeJob } from './fixture';

const spooled = async (dir: string, name: string) =>
  decodeRecords(
    await fs.readFile(path.join(dir, 'tracking', 'spool', name)).catch(() => Buffer.alloc(0)),
    0,
  ).map((r) => r.point);

async function oneShot(text: string, ts: string): Promise<string> {
  const dir = await makeRunDir();
  await writeJob(dir, jobRecord({}, 1));
  await fs.writeFile(path.join(dir, 'logs', 'rank-0.out'), text);
  await fs.writeFile(path.join(dir, 'logs', 'rank-0.out.ts'), ts);
  await (await SpoolStage.open(dir, jobRecord({}, 1), undefined)).step(jobRecord({}, 1), false);
  return dir;
}

test('any split of the writes, with crashes between append and commit, spools each line once', async () => {
  const lines = Array.from({ length: 12 }, (_, e) => polyLine(e, 0, 1));
  const text = lines.map((l) => l + '\n').join('');
  const ts = lines.map((_, i) => `${1764669000 + i}.000${i}\n`).join('');
  const expected = await spooled(await oneShot(text, ts), 'rank-0.jsonl');
  expect(expected.length).toBe(12);
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.nat(text.length), { maxLength: 8 }),
      fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      async (cuts, crash) => {
        const dir = await makeRunDir();
        const job = jobRecord({}, 1);
        await writeJob(dir, job);
        const out = path.join(dir, 'logs', 'rank-0.out');
        const bounds = [...new Set([0, ...cuts, text.length])].sort((a, b) => a - b);
        for (let i = 1; i < bounds.length; i++) {
          await fs.appendFile(out, text.slice(bounds[i - 1], bounds[i]));
          const done = text.slice(0, bounds[i]).split('\n').length - 1;
          await fs.writeFile(
            path.join(dir, 'logs', 'rank-0.out.ts'),
            ts
              .split('\n')
              .slice(0, done)
              .map((l) => l + '\n')
              .join(''),
          );
          const spool = await SpoolStage.open(dir, job, undefined);
          await spool.step(job, false);
          if (crash[i % 8]) {
            // a crash after appending, before state.json: garbage beyond the committed size
            await fs.appendFile(path.join(dir, 'tracking', 'spool', 'rank-0.jsonl'), '["loss",9,9,9]\n["to');
          }
        }
        await (await SpoolStage.open(dir, job, undefined)).step(job, false);
        expect(await spooled(dir, 'rank-0.jsonl')).toEqual(expected);
        expect(await spooled(dir, 'parent.jsonl')).toEqual(
          expected.flatMap((p) => ['mean', 'min', 'max'].map((s) => ({ ...p, key: `loss/${s}` }))),
        );
      },
    ),
    { numRuns: 25 },
  );
});

test('lines wait for .out.ts; at the end (or after the grace by our clock) they take the last line time', async () => {
  const dir = await makeRunDir();
  const job = jobRecord({}, 1);
  await writeJob(dir, job);
  const out = path.join(dir, 'logs', 'rank-0.out');
  await fs.writeFile(out, `${polyLine(0, 0, 1)}\n${polyLine(1, 0, 1)}\n`);
  await fs.writeFile(`${out}.ts`, '1764669000.100000\n');
  await fs.utimes(out, 1, 1); // the file server's clock is far off: it must not matter
  const s = await SpoolStage.open(dir, job, undefined);
  await s.step(job, false, Date.now(), 60_000);
  expect((await spooled(dir, 'rank-0.jsonl')).map((p) => p.timestamp)).toEqual([1764669000100]);
  await s.step(job, true); // the job ended: line 2 takes the time of the line before it
  expect((await spooled(dir, 'rank-0.jsonl')).map((p) => p.timestamp)).toEqual([
    1764669000100, 1764669000100,
  ]);
  // the late .out.ts line for line 2 is skipped; line 3 gets its own time
  await fs.appendFile(`${out}.ts`, '1764669001.200000\n1764669002.300000\n');
  await fs.appendFile(out, `${polyLine(2, 0, 1)}\n`);
  await s.step(job, false, Date.now(), 60_000);
  expect((await spooled(dir, 'rank-0.jsonl')).map((p) => p.timestamp)).toEqual([
    1764669000100, 1764669000100, 1764669002300,
  ]);
  // without any .out.ts: held until the lines waited the grace time by ingestion's clock (not by
  // the log's mtime), then the rank's start (logs/rank-R.json), here absent: ingestion's clock
  await fs.appendFile(path.join(dir, 'logs', 'rank-1.out'), `${polyLine(0, 1, 1)}\n`);
  const t0 = Date.now();
  expect((await s.step(job, false, t0 + 10_000, 5000)).held).toBe(1);
  expect((await s.step(job, false, t0 + 14_000, 5000)).held).toBe(1);
  expect((await s.step(job, false, t0 + 15_001, 5000)).held).toBe(0);
  expect((await spooled(dir, 'rank-1.jsonl')).map((p) => p.timestamp)).toEqual([t0 + 15_001]);
  // with its facts, a rank's first lines without times take its start
  await writeFacts(dir, 2);
  await fs.appendFile(path.join(dir, 'logs', 'rank-2.out'), `${polyLine(0, 2, 1)}\n`);
  await s.step(job, true);
  expect((await spooled(dir, 'rank-2.jsonl')).map((p) => p.timestamp)).toEqual([1764669001000]);
});

test('the format is fixed at the first ingest', async () => {
  const dir = await oneShot(`${polyLine(0, 0, 1)}\n`, '1.0\n');
  await expect(SpoolStage.open(dir, undefined, 'luna')).rejects.toThrow(
    /was ingested with --metrics-format auto, not luna/,
  );
  await expect(SpoolStage.open(await makeRunDir(), undefined, 'yaml')).rejects.toThrow(
    /--metrics-format: "yaml" is not valid/,
  );
  // state.json made before any point (the runs made at submit): the first format given counts
  const fresh = await makeRunDir();
  expect((await SpoolStage.open(fresh, undefined, undefined)).state.format).toBe('auto');
  expect((await SpoolStage.open(fresh, undefined, 'luna')).state.format).toBe('luna');
  expect(JSON.parse(await fs.readFile(path.join(fresh, 'tracking', 'state.json'), 'utf8')).format).toBe(
    'luna',
  );
  expect((await SpoolStage.open(fresh, undefined, undefined)).state.format).toBe('luna');
});

// The aggregator is read back from the spools only when an ingest needs it (spool-stage.ts).
describe('aggregates across ingests', () => {
  const world = 2;
  const job = jobRecord({}, world);
  const statePath = (dir: string) => path.join(dir, 'tracking', 'state.json');
  const pendingOf = async (dir: string) =>
    (JSON.parse(await fs.readFile(statePath(dir), 'utf8')) as { parent: { pending?: number } }).parent
      .pending;
  const ingest = async (dir: string, final = false) =>
    (await SpoolStage.open(dir, job, undefined)).step(job, final, Date.now(), 0, true);
  // expected aggregates, from the losses polyLine prints (not from the code under test)
  const aggs = (step: number, losses: number[], ms: number) =>
    (['mean', 'min', 'max'] as const).map((s) => ({
      key: `loss/${s}`,
      value: s === 'mean' ? losses.reduce((a, b) => a + b, 0) / losses.length : Math[s](...losses),
      step,
      timestamp: ms,
    }));
  const loss = (e: number, r: number) => 1 / (e + r + 1);

  test('a step waits for every rank across ingests; a step logged again is aggregated again at the end', async () => {
    const dir = await makeRunDir();
    await writeJob(dir, job);
    await appendLines(dir, 0, [polyLine(0, 0, world), polyLine(1, 0, world)], 1764669000);
    await appendLines(dir, 1, [polyLine(0, 1, world)], 1764669000);
    await ingest(dir);
    expect(await pendingOf(dir)).toBe(1); // step 1 waits for rank 1
    await appendLines(dir, 1, [polyLine(1, 1, world)], 1764669010);
    await ingest(dir); // a new ingest: step 1's rank-0 point comes back from the spool
    expect(await pendingOf(dir)).toBe(0);
    // a resumed job logs step 1 again: aggregated already, it waits for the end; then its latest value wins
    await appendLines(dir, 0, [polyLine(1, 0, world, 0.25)], 1764669020);
    await ingest(dir);
    expect(await spooled(dir, 'parent.jsonl')).toHaveLength(6);
    await ingest(dir, true);
    expect(await spooled(dir, 'parent.jsonl')).toEqual([
      // the latest of the ranks' times (appendLines: t0 + line, .123456 + rank s, in ms)
      ...aggs(0, [loss(0, 0), loss(0, 1)], 1764669000123),
      ...aggs(1, [loss(1, 0), loss(1, 1)], 1764669010123),
      ...aggs(1, [0.25, loss(1, 1)], 1764669020123),
    ]);
  });

  test('an ingest with nothing new and nothing pending reads no rank spool', async () => {
    const dir = await makeRunDir();
    await writeJob(dir, job);
    for (const r of [0, 1])
      await appendLines(dir, r, [polyLine(0, r, world), polyLine(1, r, world)], 1764669000);
    await ingest(dir);
    expect(await pendingOf(dir)).toBe(0);
    // rank 0's spool made unreadable within its committed size: reading it fails
    const spool = path.join(dir, 'tracking', 'spool', 'rank-0.jsonl');
    await fs.writeFile(spool, 'x'.repeat((await fs.stat(spool)).size));
    await expect(ingest(dir)).resolves.toEqual({ added: 0, held: 0 });
    await expect(ingest(dir, true)).resolves.toEqual({ added: 0, held: 0 });
    // a state written before `pending` existed (or a commit with steps pending) reads them all
    const state = JSON.parse(await fs.readFile(statePath(dir), 'utf8')) as {
      parent: Record<string, unknown>;
    };
    delete state.parent.pending;
    await fs.writeFile(statePath(dir), JSON.stringify(state));
    await expect(ingest(dir)).rejects.toThrow(/rank-0\.jsonl has a record longer than/);
  });
});
