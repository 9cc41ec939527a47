// Following a job live: lines arrive in pieces, .out.ts lags, rank facts appear late; the
// result must equal an offline ingest + sync of the same logs. And the server may go away.
import { promises as fs } from 'fs';
import * as path from 'path';
import {
  ingestRunDir,
  readRunMetrics,
  startLiveIngest,
  syncRunDir,
  type Progress,
} from '../../../tracking-plugin';
import type { Run } from '../../../tracking-plugin/mlflow/types';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { endJob, jobRecord, makeRunDir, polyLog, writeFacts, writeJob } from '../../unit/tracking/fixture';
import { history, jobRuns, tag, triples, writeSlowly } from './helpers';
import { mlflowDown, mlflowUp, ownServer, uniqueName } from './server';

jest.setTimeout(300_000);
const jobKeyOf = async (dir: string) =>
  JSON.parse(await fs.readFile(path.join(dir, 'tracking', 'state.json'), 'utf8')).job_key as string;
const waitFor = async (cond: () => boolean, ms: number) => {
  for (const t0 = Date.now(); !cond();) {
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
};

test('live follow equals offline + sync, point for point', async () => {
  const uri = mlflowUp();
  const client = await MlflowClient.connect(uri, {});
  const experiment = uniqueName('live');
  const live = await makeRunDir();
  await writeJob(live, jobRecord({ job_id: uniqueName('live') }));
  const seen: Progress[] = [];
  const ing = startLiveIngest(live, {
    env: { MLFLOW_TRACKING_URI: uri },
    experiment,
    pollMs: 100,
    onProgress: (p) => seen.push(p),
  });
  // the first lines, then wait until they are in MLflow, then the rest: the ingest is really live
  await Promise.all([0, 1, 2].map((r) => writeSlowly(live, r, polyLog(r).slice(0, 4), 1764669000 + r, 40)));
  await waitFor(() => (ing.progress().pointsSent ?? 0) >= 9, 60_000);
  const early = ing.progress();
  await Promise.all(
    [0, 1, 2].map(async (r) => {
      await writeSlowly(live, r, polyLog(r).slice(4), 1764669004 + r, 40);
      await writeFacts(live, r); // facts late: the tags follow
    }),
  );
  await waitFor(() => (ing.progress().pointsSent ?? 0) >= 30, 60_000);
  await endJob(live, 'COMPLETED');
  ing.jobEnded('COMPLETED');
  const s = await ing.done;
  expect(s).toMatchObject({
    complete: true,
    status: 'FINISHED',
    pointsSpooled: 60,
    pointsSent: 60,
    pending: 0,
  });
  expect(early).toMatchObject({ final: false, ranksSeen: 3, state: 'RUNNING' });
  expect(early.pointsSent).toBeLessThan(30);
  expect(seen.length).toBeGreaterThan(2);

  // the offline twin: same logs, another job, ingested with no server (spooled), then synced
  const off = await makeRunDir();
  await writeJob(off, jobRecord({ job_id: uniqueName('off') }));
  for (const f of await fs.readdir(path.join(live, 'logs')))
    await fs.copyFile(path.join(live, 'logs', f), path.join(off, 'logs', f));
  await endJob(off, 'COMPLETED');
  const spooled = await ingestRunDir(off, { env: {}, experiment });
  expect(spooled.trackingUri).toBeUndefined();
  expect(spooled.pointsSpooled).toBe(60);
  const o = await syncRunDir(off, { env: { MLFLOW_TRACKING_URI: uri }, experiment });

  const a = await jobRuns(client, s.experimentId as string, await jobKeyOf(live));
  const b = await jobRuns(client, o.experimentId as string, await jobKeyOf(off));
  expect([a.all.length, b.all.length]).toEqual([4, 4]);
  const series = await readRunMetrics(live);
  for (const r of [0, 1, 2]) {
    const ha = await history(client, a.ranks.get(r)!.info.run_id, 'loss');
    expect(ha).toEqual(triples(series[r].points, 'loss'));
    expect(await history(client, b.ranks.get(r)!.info.run_id, 'loss')).toEqual(ha);
    expect(tag(a.ranks.get(r)!, 'host')).toBe(`n${r + 1}`);
  }
  // The same runs apart from what names the job: tags, params, status, per rank and for the parent.
  const JOB_SPECIFIC = [
    'track_launch.job_key',
    'track_launch.run_dir',
    'slurm.job_id',
    'mlflow.parentRunId',
    'mlflow.runName',
  ];
  const shape = (r: Run) => ({
    name: r.info.run_name?.replace(/ #\S+$/, ''), // the parent's name holds the job id
    status: r.info.status,
    tags: Object.fromEntries(
      (r.data.tags ?? []).filter((t) => !JOB_SPECIFIC.includes(t.key)).map((t) => [t.key, t.value]),
    ),
    params: Object.fromEntries((r.data.params ?? []).map((p) => [p.key, p.value])),
  });
  expect(shape(a.parent)).toEqual(shape(b.parent));
  expect(shape(a.parent).status).toBe('FINISHED');
  for (const r of [0, 1, 2]) expect(shape(a.ranks.get(r)!)).toEqual(shape(b.ranks.get(r)!));
  for (const k of ['loss/mean', 'loss/min', 'loss/max']) {
    expect(await history(client, a.parent.info.run_id, k)).toEqual(
      await history(client, b.parent.info.run_id, k),
    );
  }
});

test('the server stops in the middle of a follow and comes back: nothing lost, nothing doubled', async () => {
  const srv = ownServer();
  try {
    const client = await MlflowClient.connect(srv.uri, {});
    const dir = await makeRunDir();
    await writeJob(dir, jobRecord({ job_id: uniqueName('outage') }));
    for (const r of [0, 1, 2]) await writeFacts(dir, r);
    const lines = (r: number) =>
      Array.from({ length: 40 }, (_, e) => `epoch ${e}, loss = ${1 / (e + r + 1)}, rank ${r}/3 (n${r + 1}).`);
    const errors: string[] = [];
    const ing = startLiveIngest(dir, {
      env: { MLFLOW_TRACKING_URI: srv.uri },
      pollMs: 100,
      maxRetries: 1,
      onProgress: (p) => p.lastError && errors.push(p.lastError),
    });
    await Promise.all([0, 1, 2].map((r) => writeSlowly(dir, r, lines(r).slice(0, 15), 1764669000, 20)));
    await waitFor(() => (ing.progress().pointsSent ?? 0) >= 45, 30_000);
    mlflowDown(srv.dir);
    await Promise.all([0, 1, 2].map((r) => writeSlowly(dir, r, lines(r).slice(15), 1764669015, 20)));
    await waitFor(() => errors.length > 0, 60_000);
    expect(ing.progress()).toMatchObject({ online: false });
    expect(ing.progress().pending).toBeGreaterThan(0);
    expect(errors[0]).toMatch(/cannot reach MLflow/);
    mlflowUp(srv.dir);
    await endJob(dir, 'TIMEOUT');
    ing.jobEnded('TIMEOUT');
    const s = await ing.done;
    expect(s).toMatchObject({ complete: true, status: 'FAILED', pointsSent: 120 + 120 });
    const runs = await jobRuns(client, s.experimentId as string, await jobKeyOf(dir));
    expect(runs.all.length).toBe(4);
    const series = await readRunMetrics(dir);
    for (const r of [0, 1, 2])
      expect(await history(client, runs.ranks.get(r)!.info.run_id, 'loss')).toEqual(
        triples(series[r].points, 'loss'),
      );
    expect((await history(client, runs.parent.info.run_id, 'loss/mean')).length).toBe(40);
  } finally {
    mlflowDown(srv.dir, true);
  }
});
