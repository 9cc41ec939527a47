// Metric names longer than MLflow keeps, on the real MLflow server through `ingest`: a 245-character
// key arrives as it is, two 260-character keys that differ only at the end arrive as two metrics
// (each under a stable shortened name with a hash, the original in a tag), their parent aggregates
// too; nothing dropped, nothing merged, exit 0.
import { promises as fs } from 'fs';
import * as path from 'path';
import yargs from 'yargs';
import { ingestCommand } from '../../../cli/commands/ingest';
import { nameTagKey } from '../../../tracking-plugin/ingest/names-map';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { mlflowName } from '../../../tracking-plugin/mlflow/names';
import { endJob, jobRecord, makeRunDir, writeJob } from '../../unit/tracking/fixture';
import { appendLines, history, jobRuns, tag } from './helpers';
import { mlflowUp, uniqueName } from './server';

jest.setTimeout(240_000);

const STEPS = 5;
const RANKS = [0, 1];
const long = (n: number, end: string) => 'encoder.layers.' + 'x'.repeat(n - 15 - end.length) + end;
const NAMES = [long(245, '.loss'), long(260, '.weight.grad_norm'), long(260, '.bias.grad_norm')];
const value = (rank: number, step: number, i: number) => rank + step / 100 + i;

async function ingest(args: string[]): Promise<string> {
  let out = '';
  const w = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string) => ((out += s), true)) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    await yargs(['ingest', ...args, '--no-report'])
      .command(ingestCommand)
      .option('json', { type: 'boolean' })
      .strict()
      .fail((msg, err) => {
        throw err ?? new Error(msg);
      })
      .parseAsync();
  } finally {
    process.stdout.write = w;
    process.stderr.write = e;
  }
  return out;
}

test('long metric names: read back from the server, one series each, never merged or dropped', async () => {
  const uri = mlflowUp();
  const client = await MlflowClient.connect(uri, {});
  const dir = await makeRunDir();
  await writeJob(dir, jobRecord({ job_id: uniqueName('long') }, RANKS.length));
  for (const r of RANKS) {
    const lines = Array.from({ length: STEPS }, (_, step) =>
      JSON.stringify({
        track_launch: 1,
        step,
        metrics: Object.fromEntries(NAMES.map((n, i) => [n, value(r, step, i)])),
      }),
    );
    await appendLines(dir, r, lines, 1764669000 + r);
  }
  await endJob(dir, 'COMPLETED');

  const s = JSON.parse(
    await ingest([dir, '--json', '--tracking-uri', uri, '--experiment', uniqueName('long')]),
  );
  const expected = RANKS.length * STEPS * NAMES.length + 3 * STEPS * NAMES.length;
  expect(s).toMatchObject({ complete: true, pointsSpooled: expected, pointsSent: expected, pending: 0 });
  expect(s.undelivered).toBeUndefined();

  // the test's own expectations of the names sent: the 245-character one as it is, the others shortened
  const sent = NAMES.map((n) => mlflowName(n)!);
  expect(sent[0]).toBe(NAMES[0]);
  expect(sent[1]).not.toBe(sent[2]);
  for (const m of sent) expect(m.length).toBeLessThanOrEqual(250);

  const key = JSON.parse(await fs.readFile(path.join(dir, 'tracking', 'state.json'), 'utf8')).job_key;
  const runs = await jobRuns(client, s.experimentId, key);
  for (const rank of RANKS) {
    const run = runs.ranks.get(rank)!;
    for (const [i, n] of NAMES.entries()) {
      const want = Array.from({ length: STEPS }, (_, step) => [step, value(rank, step, i)]);
      const got = (await history(client, run.info.run_id, sent[i])).map(([st, v]) => [st, v]);
      expect([n.slice(-20), got]).toEqual([n.slice(-20), want]);
      if (sent[i] !== n) expect(tag(run, nameTagKey(sent[i]))).toBe(n);
    }
  }
  for (const [i, n] of NAMES.entries())
    for (const agg of ['mean', 'min', 'max']) {
      const aggName = mlflowName(`${n}/${agg}`)!;
      const got = await history(client, runs.parent.info.run_id, aggName);
      const values = (step: number) => RANKS.map((r) => value(r, step, i));
      const want = Array.from({ length: STEPS }, (_, step) => {
        const v = values(step);
        return agg === 'min' ? Math.min(...v) : agg === 'max' ? Math.max(...v) : (v[0] + v[1]) / 2;
      });
      expect([n.slice(-20), agg, got.map(([, v]) => v)]).toEqual([n.slice(-20), agg, want]);
      if (aggName !== `${n}/${agg}`) expect(tag(runs.parent, nameTagKey(aggName))).toBe(`${n}/${agg}`);
    }
});
