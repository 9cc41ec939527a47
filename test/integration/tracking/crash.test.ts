// Ingest killed (SIGKILL) at random points and restarted, then run twice more: identical point
// counts, no duplicates, no extra runs. Runs the compiled plugin in child processes, through a
// counting proxy: what was sent is counted on our side (MLflow would drop a resent duplicate
// silently), and no point is sent again once a committed cursor points past it.
import { spawn } from 'child_process';
import { promises as fs } from 'fs';
import * as path from 'path';
import { readRunMetrics } from '../../../tracking-plugin';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { endJob, jobRecord, makeRunDir, writeFacts, writeJob } from '../../unit/tracking/fixture';
import { appendLines, compilePlugin, history, jobRuns, triples } from './helpers';
import {
  withCountingProxy,
  type CountingProxy,
  pointId,
  resentAfterAck,
  type SentPoint,
} from './counting-proxy';
import { mlflowUp, uniqueName } from './server';
import { committedIds, loggedPoints } from './sent-ledger';

jest.setTimeout(600_000);
const ROOT = path.resolve(__dirname, '../../..');

function runChild(
  plugin: string,
  dir: string,
  uri: string,
  experiment: string,
  killAfterMs?: number,
): Promise<{ code: number | null; signal: string | null; out: string }> {
  const code = `require(${JSON.stringify(plugin)}).syncRunDir(${JSON.stringify(dir)}, { env: { MLFLOW_TRACKING_URI: ${JSON.stringify(uri)} }, experiment: ${JSON.stringify(experiment)} })
    .then((s) => console.log(JSON.stringify(s)), (e) => { console.error(e.message); process.exit(6); })`;
  const child = spawn(process.execPath, ['-e', code], {
    env: { ...process.env, NODE_PATH: path.join(ROOT, 'node_modules') },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) =>
    child.on('exit', (c, s) => {
      if (timer) clearTimeout(timer);
      resolve({ code: c, signal: s, out });
    }),
  );
}

test('killed at 20 random points, restarted, run twice: exactly once', async () => {
  await withCountingProxy(mlflowUp(), killedAndRestarted);
});

async function killedAndRestarted(proxy: CountingProxy): Promise<void> {
  const uri = proxy.uri;
  const plugin = compilePlugin(path.join(ROOT, 'test', '.artifacts', 'tracking-js'));
  const client = await MlflowClient.connect(uri, {});
  const experiment = uniqueName('crash');
  const dir = await makeRunDir();
  await writeJob(dir, jobRecord({ job_id: uniqueName('crash') }));
  // One whole sync of this (24,000 rank points and the parent's aggregates) takes several times the
  // longest kill delay, so the kills land mid-way, and each phase resumes from committed cursors.
  const N = 1000;
  const KILL_POINTS = 20;
  for (const r of [0, 1, 2]) {
    await writeFacts(dir, r);
    const lines = Array.from({ length: N }, (_, i) =>
      JSON.stringify({
        track_launch: 1,
        step: i,
        metrics: { loss: 1 / (i + r + 1), acc: (i % 97) / 97, lr: 0.001, nan: i % 500 === 0 ? 'NaN' : i },
      }),
    );
    await appendLines(dir, r, lines, 1764669000);
  }
  const delays: number[] = [];
  /** Per phase (one child process), the points committed before it started. */
  const committedBefore: Set<string>[] = [];
  let kills = 0;
  for (let i = 0; i < KILL_POINTS; i++) {
    if (i === KILL_POINTS / 2) await endJob(dir, 'COMPLETED'); // half the kills while the job runs, half after
    const d = Math.round(300 + Math.random() * 2500);
    delays.push(d);
    committedBefore.push(await committedIds(dir, uri));
    proxy.phase = i;
    const r = await runChild(plugin, dir, uri, experiment, d);
    if (r.signal === 'SIGKILL') kills++;
    else expect([r.code, r.out]).toEqual([0, expect.any(String)]);
  }
  expect(kills).toBeGreaterThanOrEqual(10); // the kills really landed mid-way (delays: printed below if not)
  for (let i = 0; i < 2; i++) {
    committedBefore.push(await committedIds(dir, uri));
    proxy.phase = KILL_POINTS + i;
    const r = await runChild(plugin, dir, uri, experiment);
    expect([r.code, delays]).toEqual([0, delays]);
    expect(JSON.parse(r.out.trim().split('\n').pop() as string)).toMatchObject({
      complete: true,
      status: 'FINISHED',
      pending: 0,
    });
  }
  const key = JSON.parse(await fs.readFile(path.join(dir, 'tracking', 'state.json'), 'utf8')).job_key;
  const runs = await jobRuns(client, (await client.getExperimentByName(experiment))!.experiment_id, key);
  expect(runs.all.length).toBe(4);
  const series = await readRunMetrics(dir);
  for (const r of [0, 1, 2]) {
    for (const k of ['loss', 'acc', 'lr', 'nan']) {
      const h = await history(client, runs.ranks.get(r)!.info.run_id, k);
      expect([r, k, h.length]).toEqual([r, k, N]);
      expect(h).toEqual(triples(series[r].points, k));
    }
  }
  for (const k of ['loss/mean', 'acc/max', 'nan/min'])
    expect((await history(client, runs.parent.info.run_id, k)).length).toBe(N);
  await expectSentOnce(proxy.sent, committedBefore, dir, runs, N);
}

/** Counted on our side: no phase sent a point a cursor committed before it, no phase sent a point
 *  twice, and the rank points that arrived are exactly the logs' (the test's own regex reading). */
async function expectSentOnce(
  sent: SentPoint[],
  committedBefore: Set<string>[],
  dir: string,
  runs: Awaited<ReturnType<typeof jobRuns>>,
  N: number,
): Promise<void> {
  const resentAfterCommit = sent.filter((p) => committedBefore[p.phase].has(pointId(p)));
  expect(resentAfterCommit.slice(0, 5)).toEqual([]);
  // within a phase, a point goes out again only after a send of it was refused or got no answer
  expect(resentAfterAck(sent, (p) => `phase ${p.phase}`).slice(0, 5)).toEqual([]);
  // the last phase found everything committed (the one before ran to its end): it sent nothing
  expect(sent.filter((p) => p.phase === committedBefore.length - 1)).toEqual([]);
  expect(sent.length).toBeGreaterThan(0);
  for (const r of [0, 1, 2]) {
    const runId = runs.ranks.get(r)!.info.run_id;
    const want = new Map((await loggedPoints(dir, r)).map((p) => [pointId({ runId, ...p }), p.value]));
    expect(want.size).toBe(4 * N);
    const got = new Map(sent.filter((p) => p.runId === runId).map((p) => [pointId(p), p.value]));
    expect(got.size).toBe(want.size);
    expect([...got].filter(([id, v]) => want.get(id) !== v).slice(0, 5)).toEqual([]);
  }
}
