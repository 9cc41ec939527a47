// Offline first: ingest with no tracking URI keeps everything in the run dir; sync uploads it.
// Then: runs, tags, params, histories, aggregates, status and artifacts as the issue describes,
// and a second sync changes nothing. Every sync goes through a counting proxy: what was sent is
// counted on our side (MLflow drops a resent duplicate silently) against the logs as the test's own
// regex reads them, and no point is sent again once a committed cursor points past it.
import { execFileSync } from 'child_process';
import { promises as fs } from 'fs';
import * as path from 'path';
import { findTrackedRuns, ingestRunDir, readRunMetrics, syncRunDir } from '../../../tracking-plugin';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { endJob, jobRecord, makeRunDir, polyLog, writeFacts, writeJob } from '../../unit/tracking/fixture';
import { appendLines, history, jobRuns, tag, triples } from './helpers';
import { withCountingProxy, type CountingProxy } from './counting-proxy';
import { mlflowUp, uniqueName } from './server';
import {
  aggregatesOf,
  auditSent,
  clean,
  committedIds,
  expectedOf,
  loggedPoints,
  polyReader,
} from './sent-ledger';

jest.setTimeout(180_000);

test('offline ingest, then sync: one parent, a child per rank, exact histories, aggregates, status', async () => {
  await withCountingProxy(mlflowUp(), offlineThenSync);
});

async function offlineThenSync(proxy: CountingProxy): Promise<void> {
  const uri = proxy.uri; // the syncs' server: the real one, through the counting proxy
  const client = await MlflowClient.connect(uri, {});
  const experiment = uniqueName('offline');
  const dir = await makeRunDir();
  await writeJob(dir, jobRecord({ job_id: uniqueName('job') }));
  await fs.writeFile(path.join(dir, 'job.sbatch'), '#!/bin/bash\n#SBATCH -N 3\nsrun python main.py\n');
  for (const r of [0, 1, 2]) {
    await appendLines(dir, r, polyLog(r), 1764669000 + r);
    await writeFacts(dir, r);
  }
  // No newline yet: waits while the job runs; taken as it is once the job has ended (the writer is gone).
  await fs.appendFile(path.join(dir, 'logs', 'rank-2.out'), 'epoch 1000, loss = 0.5');

  /** The committed cursors before each phase (one sync each), for the proxy's record. */
  const committedBefore: Set<string>[] = [];
  const phase = async (n: number) => {
    committedBefore[n] = await committedIds(dir, uri);
    proxy.phase = n;
  };
  await phase(0);
  const off = await ingestRunDir(dir, { env: {}, experiment });
  expect(off.trackingUri).toBeUndefined();
  expect(off.pointsSpooled).toBe(30 + 30); // 3 ranks x 10 epochs + 10 steps x (mean, min, max)
  expect(await findTrackedRuns(dir)).toBeUndefined();
  expect(proxy.sent).toEqual([]); // offline: nothing left the run dir
  await endJob(dir, 'COMPLETED', 1764669100);

  await phase(1);
  const s = await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: uri }, experiment });
  // + rank 2's last line (step 1000) and its mean/min/max over the one rank that reported it
  expect(s).toMatchObject({ complete: true, status: 'FINISHED', pending: 0, pointsSent: 64 });
  const key = JSON.parse(await fs.readFile(path.join(dir, 'tracking', 'state.json'), 'utf8')).job_key;
  const runs = await jobRuns(client, s.experimentId as string, key);
  expect(runs.all.length).toBe(4);
  expect((await findTrackedRuns(dir))?.parentRunId).toBe(runs.parent.info.run_id);

  const p = runs.parent;
  const jobId = JSON.parse(await fs.readFile(path.join(dir, 'job.json'), 'utf8')).job_id;
  expect(p.info).toMatchObject({ run_name: `poly #${jobId}`, status: 'FINISHED' });
  expect(Number(p.info.end_time)).toBe(1764669100000);
  for (const [k, v] of Object.entries({
    'slurm.job_id': expect.any(String),
    'slurm.cluster': 'testcluster',
    'slurm.nodelist': 'n[1-3]',
    'slurm.partition': 'batch',
    launcher: 'srun',
    backend: 'gloo',
    world_size: '3',
    node_count: '3',
    master_addr: '10.0.0.1',
    master_port: '29500',
    'mlflow.source.type': 'JOB',
    'mlflow.source.name': 'python main.py',
  })) {
    expect([k, tag(p, k)]).toEqual([k, v]);
  }
  expect(tag(p, 'mlflow.user')).toBeTruthy();
  const params = Object.fromEntries((p.data.params ?? []).map((x) => [x.key, x.value]));
  expect(params).toMatchObject({
    lr: '0.001',
    'job.nodes': '3',
    'job.world_size': '3',
    'job.launcher': 'srun',
  });

  const series = await readRunMetrics(dir);
  for (const r of [0, 1, 2]) {
    const child = runs.ranks.get(r)!;
    expect(child.info).toMatchObject({ run_name: `rank-${r}`, status: 'FINISHED' });
    expect([
      tag(child, 'mlflow.parentRunId'),
      tag(child, 'host'),
      tag(child, 'ip'),
      tag(child, 'local_rank'),
      tag(child, 'node_rank'),
    ]).toEqual([p.info.run_id, `n${r + 1}`, `10.0.0.${r + 1}`, '0', String(r)]);
    expect(await history(client, child.info.run_id, 'loss')).toEqual(triples(series[r].points, 'loss'));
    const arts = await client.listArtifacts(child.info.run_id, 'logs');
    expect(arts.map((a) => a.path)).toEqual([`logs/rank-${r}.out`]);
  }
  const mean = await history(client, p.info.run_id, 'loss/mean');
  expect(mean.map((x) => x[0])).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
  const at100 = [0, 1, 2].map((r) => 1 / (100 + r + 1));
  expect(mean[1][1]).toBeCloseTo(at100.reduce((a, b) => a + b) / 3, 12);
  expect((await history(client, p.info.run_id, 'loss/min'))[1][1]).toBe(Math.min(...at100));
  expect((await history(client, p.info.run_id, 'loss/max'))[1][1]).toBe(Math.max(...at100));
  expect(mean[1][2]).toBe(Math.max(...series.map((x) => x.points[1].timestamp)));
  expect((await client.listArtifacts(p.info.run_id)).map((a) => a.path).sort()).toEqual([
    'job.json',
    'job.sbatch',
  ]);

  // twice after the job: nothing new, no extra runs, same counts
  await phase(2);
  const again = await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: uri }, experiment });
  expect(again).toMatchObject({ complete: true, pointsSent: 64, parentRunId: p.info.run_id });
  expect((await jobRuns(client, s.experimentId as string, key)).all.length).toBe(4);

  // Counted on our side, against the logs read with the test's own regex (polyReader, not the
  // plugin's parser), rank 2's unterminated last line included: the first sync sent each of the 64
  // points once with its logged value and time, the second (all cursors committed) sent nothing.
  const logged = await Promise.all([0, 1, 2].map((r) => loggedPoints(dir, r, polyReader)));
  expect(logged.map((l) => l.length)).toEqual([10, 10, 11]);
  const expected = expectedOf(p.info.run_id, aggregatesOf(logged));
  for (const r of [0, 1, 2]) expectedOf(runs.ranks.get(r)!.info.run_id, logged[r], expected);
  expect(expected.size).toBe(64);
  expect(auditSent(proxy.sent, committedBefore, expected)).toEqual(clean(64));
  expect(proxy.sent.filter((x) => x.phase === 2)).toEqual([]);
  expect(proxy.torn).toBe(0);

  // lost remote state (another machine, deleted file): found by tag, re-sent points dropped by MLflow
  for (const f of await fs.readdir(path.join(dir, 'tracking')))
    if (f.startsWith('mlflow-')) await fs.rm(path.join(dir, 'tracking', f));
  await phase(3);
  expect(committedBefore[3].size).toBe(0); // no cursor left: sending all again is what it must do
  const third = await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: uri }, experiment });
  expect(third.parentRunId).toBe(p.info.run_id);
  expect((await jobRuns(client, s.experimentId as string, key)).all.length).toBe(4);
  for (const r of [0, 1, 2])
    expect((await history(client, runs.ranks.get(r)!.info.run_id, 'loss')).length).toBe(r === 2 ? 11 : 10);
  expect((await history(client, p.info.run_id, 'loss/max')).length).toBe(11);
  // ... and that resend is one copy of each point, not more
  expect(auditSent(proxy.sent, committedBefore, expected, [3])).toEqual(clean(64));
}

test('a failed job: FAILED status, ranks without facts still get runs; job with no job.json ingests too', async () => {
  const uri = mlflowUp();
  const client = await MlflowClient.connect(uri, {});
  const dir = await makeRunDir();
  const script = path.resolve(__dirname, '../../../examples/polynomial/train.py'); // in this repo's git
  const job = jobRecord({ job_id: uniqueName('job') }, 2);
  await writeJob(dir, { ...job, spec: { ...job.spec, command: ['/usr/bin/python3', script] } });
  await appendLines(
    dir,
    0,
    ['epoch 0, loss = 1.0, rank 0/2 (a).', 'epoch 100, loss = nan, rank 0/2 (a).'],
    1764669000,
  );
  await appendLines(dir, 1, ['epoch 0, loss = 3.0, rank 1/2 (b).'], 1764669000);
  await endJob(dir, 'OUT_OF_MEMORY');
  const s = await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: uri }, experiment: uniqueName('failed') });
  expect(s).toMatchObject({ complete: true, status: 'FAILED' });
  const key = JSON.parse(await fs.readFile(path.join(dir, 'tracking', 'state.json'), 'utf8')).job_key;
  const runs = await jobRuns(client, s.experimentId as string, key);
  expect(runs.parent.info.status).toBe('FAILED');
  const head = execFileSync('git', ['-C', path.dirname(script), 'rev-parse', 'HEAD'], {
    encoding: 'utf8',
  }).trim();
  expect(tag(runs.parent, 'mlflow.source.git.commit')).toBe(head);
  expect(tag(runs.ranks.get(1)!, 'host')).toBeUndefined();
  const mean = await history(client, runs.parent.info.run_id, 'loss/mean');
  expect(mean.map((m) => [m[0], m[1]])).toEqual([
    [0, 2],
    [100, NaN],
  ]); // step 100 only at the end, from rank 0

  const bare = await makeRunDir();
  await appendLines(bare, 0, ['{"track_launch": 1, "step": 1, "metrics": {"acc": 0.5}}'], 1764669000);
  const b = await syncRunDir(bare, {
    env: { MLFLOW_TRACKING_URI: uri, MLFLOW_EXPERIMENT_NAME: uniqueName('bare') },
  });
  expect(b).toMatchObject({ complete: true, pointsSent: 1 }); // no job.json: never final, the run stays RUNNING
  expect((await client.getRun(b.parentRunId as string)).info.status).toBe('RUNNING');
});
