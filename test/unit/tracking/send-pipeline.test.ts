// SendStage's run setup and sending against a scripted client that counts every request: a run's
// points go out as soon as that run exists (not after every run is made), the rank runs get their
// tags in runs/create (no log-batch for them), the sync never has more than 4 requests in flight
// (or the number it is given) and keeps them in flight while one long stream is left, and a cursor
// never passes a request the server did not acknowledge, even when a later one was acknowledged first.
import { SpoolStage } from '../../../tracking-plugin/ingest/spool-stage';
import { SendStage } from '../../../tracking-plugin/ingest/send-stage';
import { TAG_RANK, TAG_ROLE } from '../../../tracking-plugin/ingest/tags';
import type { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import type { KeyValue, LogBatchBody } from '../../../tracking-plugin/mlflow/batch';
import { appendLines, jobRecord, makeRunDir, polyLine, writeJob } from './fixture';

/** A few turns of the event loop: replies arrive in another order than the requests went out. */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

interface Call {
  what: 'experiment' | 'search' | 'create' | 'log';
  run: string;
  tags?: KeyValue[];
  metrics?: number;
}

function scriptedClient(
  hooks: {
    create?: (name: string) => Promise<void>;
    log?: (b: LogBatchBody) => Promise<void>;
  } = {},
) {
  const calls: Call[] = [];
  let active = 0;
  const peak = { all: 0, logs: 0, byRun: new Map<string, number>() };
  const activeByRun = new Map<string, number>();
  let logs = 0;
  const counted = async <T>(run: string, body: () => Promise<T>): Promise<T> => {
    active++;
    activeByRun.set(run, (activeByRun.get(run) ?? 0) + 1);
    peak.all = Math.max(peak.all, active);
    peak.byRun.set(run, Math.max(peak.byRun.get(run) ?? 0, activeByRun.get(run)!));
    try {
      return await body();
    } finally {
      active--;
      activeByRun.set(run, activeByRun.get(run)! - 1);
    }
  };
  const client = {
    uri: 'http://127.0.0.1:1',
    findOrCreateExperiment: (name: string) =>
      counted('-', async () => {
        calls.push({ what: 'experiment', run: name });
        return { id: 'exp', created: true };
      }),
    searchAllRuns: () =>
      counted('-', async () => {
        calls.push({ what: 'search', run: '-' });
        return [];
      }),
    createRun: (a: { runName: string; tags: KeyValue[] }) =>
      counted(a.runName, async () => {
        await hooks.create?.(a.runName);
        await turns(2);
        calls.push({ what: 'create', run: a.runName, tags: a.tags });
        return { info: { run_id: `id-${a.runName}` }, data: { tags: a.tags } };
      }),
    logBatchRequest: (b: LogBatchBody) =>
      counted(b.run_id, async () => {
        peak.logs = Math.max(peak.logs, ++logs);
        try {
          await (hooks.log ? hooks.log(b) : turns(1 + (b.metrics.length % 7)));
        } finally {
          logs--;
        }
        calls.push({ what: 'log', run: b.run_id, tags: b.tags, metrics: b.metrics.length });
      }),
  };
  return { client: client as unknown as MlflowClient, calls, peak };
}

async function spooled(ranks: number, steps: number) {
  const dir = await makeRunDir();
  const job = jobRecord({}, ranks);
  await writeJob(dir, job);
  for (let r = 0; r < ranks; r++)
    await appendLines(
      dir,
      r,
      Array.from({ length: steps }, (_, e) => polyLine(e, r, ranks)),
      1764669000,
    );
  const local = await SpoolStage.open(dir, job, 'polynomial');
  await local.step(job, false);
  return { dir, job, local };
}

test("run A's points go out before run B is created; rank tags travel in runs/create", async () => {
  const { dir, job, local } = await spooled(2, 1500);
  let sawRank0!: () => void;
  const rank0Logged = new Promise<void>((r) => (sawRank0 = r));
  const order: string[] = [];
  const { client, calls } = scriptedClient({
    // rank 1's create is answered only once rank 0's first points arrived (or, if they never
    // come, after a while, so that the test fails on the order below instead of hanging)
    create: async (name) => {
      if (name === 'rank-1') await Promise.race([rank0Logged, new Promise((r) => setTimeout(r, 3000))]);
      order.push(`created ${name}`);
    },
    log: async (b) => {
      await turns(1);
      if (b.run_id === 'id-rank-0' && b.metrics.length) {
        order.push('rank-0 points');
        sawRank0();
      }
    },
  });
  const remote = await SendStage.open(client, dir, { user: 'test' });
  await remote.runs.ensure(job, local, 'exp', {});
  await remote.syncTags(job, local);
  await remote.sendAll(local);
  await remote.syncTags(job, local); // tags unchanged: nothing more to send

  expect(order.indexOf('rank-0 points')).toBeGreaterThanOrEqual(0);
  expect(order.indexOf('rank-0 points')).toBeLessThan(order.indexOf('created rank-1'));
  // an experiment created by this sync holds no runs: no search
  expect(calls.filter((c) => c.what === 'search')).toEqual([]);
  const creates = calls.filter((c) => c.what === 'create' && c.run.startsWith('rank-'));
  expect(creates.map((c) => c.run).sort()).toEqual(['rank-0', 'rank-1']);
  for (const c of creates) {
    const tag = (k: string) => c.tags?.find((t) => t.key === k)?.value;
    expect([tag(TAG_ROLE), tag(TAG_RANK)]).toEqual(['rank', c.run.slice(5)]);
  }
  const rankLogs = calls.filter((c) => c.what === 'log' && c.run.startsWith('id-rank-'));
  expect(rankLogs.filter((c) => c.tags?.length)).toEqual([]);
  expect(rankLogs.reduce((n, c) => n + (c.metrics ?? 0), 0)).toBe(2 * 1500); // one metric a line
  expect(remote.pointsSent).toBe(local.pointsSpooled);
});

test('never more than 4 requests in flight, and 4 for one long stream once the others are done', async () => {
  const { dir, job, local } = await spooled(3, 1200);
  const { client, calls, peak } = scriptedClient();
  const remote = await SendStage.open(client, dir, { user: 'test' });
  await remote.runs.ensure(job, local, 'exp', {});
  await remote.sendAll(local);

  expect(peak.all).toBe(4);
  // the parent's stream (loss/mean, min, max: 3x a rank's points) is the longest
  expect(peak.byRun.get(remote.state.parent_run_id!)).toBe(4);
  const sent = calls.filter((c) => c.what === 'log').reduce((n, c) => n + (c.metrics ?? 0), 0);
  expect(sent).toBe(local.pointsSpooled); // each point once
  expect(remote.pointsSent).toBe(local.pointsSpooled);
});

test('a cursor never passes an unacknowledged request, though a later one was acknowledged first', async () => {
  const { dir, job, local } = await spooled(1, 9000); // rank 0: 9,000 points, 9 requests
  let nth = 0;
  const { client } = scriptedClient({
    log: async (b) => {
      if (b.run_id !== 'id-rank-0') return;
      const k = nth++;
      if (k === 1) {
        await turns(20); // the second request is slow, and then refused: the third is answered first
        throw new Error('cannot reach MLflow (test)');
      }
      await turns(1);
    },
  });
  const remote = await SendStage.open(client, dir, { user: 'test' });
  await remote.runs.ensure(job, local, 'exp', {});
  await expect(remote.sendAll(local)).rejects.toThrow(/cannot reach MLflow/);

  // only the first request's 1,000 points are committed: the cursor stops before the refused one
  expect(remote.state.sent_points['rank-0']).toBe(1000);
  expect(remote.state.sent['rank-0']).toBeLessThan(local.state.ranks['0'].spool);

  const again = scriptedClient();
  const next = await SendStage.open(again.client, dir, { user: 'test' });
  await next.runs.ensure(job, local, 'exp', {});
  await next.sendAll(local);
  const resent = again.calls.filter((c) => c.run === 'id-rank-0').reduce((n, c) => n + (c.metrics ?? 0), 0);
  expect(resent).toBe(8000); // everything after the committed first request, once
  expect(next.pointsSent).toBe(local.pointsSpooled);
});

test('the number of requests in flight it is given, for every request', async () => {
  for (const limit of [1, 2, 7]) {
    const { dir, job, local } = await spooled(3, 1200);
    const { client, peak } = scriptedClient();
    const remote = await SendStage.open(client, dir, { user: 'test' }, limit);
    await remote.runs.ensure(job, local, 'exp', {});
    await remote.sendAll(local);
    expect(peak.all).toBe(limit);
    expect(remote.pointsSent).toBe(local.pointsSpooled);
  }
});
