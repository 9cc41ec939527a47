// Resource samples as MLflow system metrics against the real server: offline ingest + sync of a
// real 3-node run, and a live follow while a node file grows. Each node's samples land once on the
// parent run under system/<host>/..., none on the rank runs (no GPUs here), and syncing again adds none.
// Every request goes through a counting proxy: each point (system samples, rank losses, aggregates)
// is counted as sent exactly once on our side, against values read from the files with the test's
// own code (JSON.parse of the samples, a regex over the logs), never resent past a committed cursor.
import { promises as fs } from 'fs';
import * as path from 'path';
import { ingestRunDir, startLiveIngest, syncRunDir } from '../../../tracking-plugin';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { endJob, jobRecord, makeRunDir, polyLog, rankFacts, writeJob } from '../../unit/tracking/fixture';
import { appendLines, history, jobRuns } from './helpers';
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
  type Expected,
  type LoggedPoint,
} from './sent-ledger';

jest.setTimeout(180_000);
const FIXTURE = path.resolve(__dirname, '../../fixtures/runs/polynomial-3-nodes');
const CPU = 'system/cpu_utilization_percentage';
/** MiB to MLflow's megabytes (10^6 bytes), written out here. */
const toMB = (mib: number) => (mib * 1024 * 1024) / 1e6;
const jobKeyOf = async (dir: string) =>
  JSON.parse(await fs.readFile(path.join(dir, 'tracking', 'state.json'), 'utf8')).job_key as string;
const waitFor = async (cond: () => boolean, ms: number) => {
  for (const t0 = Date.now(); !cond();) {
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
};
const sampleLines = async (file: string) =>
  (await fs.readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

/** A node's samples as the parent's system points (docs/tracking.md: step = line number, time = t
 *  in ms rounded), computed here from the sample lines. */
const nodePoints = (host: string, samples: Sample[]): LoggedPoint[] =>
  samples.flatMap((x, step) => {
    const timestamp = Math.round(x.t * 1000);
    return Object.entries({
      cpu_utilization_percentage: x.cpu_util,
      system_memory_usage_megabytes: toMB(x.mem_used_mb),
      system_memory_usage_percentage: (100 * x.mem_used_mb) / x.mem_total_mb,
      job_cpu_utilization_percentage: x.job.cpu_util,
      job_memory_rss_megabytes: toMB(x.job.rss_mb),
    }).map(([k, value]) => ({ key: `system/${host}/${k}`, step, timestamp, value }));
  });
interface Sample {
  t: number;
  cpu_util: number;
  mem_used_mb: number;
  mem_total_mb: number;
  job: { cpu_util: number; rss_mb: number };
}

/** Every point a job's runs should receive: each rank's losses (polyReader over its log), their
 *  aggregates on the parent, and each node's samples on the parent. */
async function expectedPoints(
  dir: string,
  runs: Awaited<ReturnType<typeof jobRuns>>,
  ranks: number[],
  nodes: Record<string, Sample[]>,
): Promise<Expected> {
  const logged = await Promise.all(ranks.map((r) => loggedPoints(dir, r, polyReader)));
  const parent = runs.parent.info.run_id;
  const expected = expectedOf(parent, aggregatesOf(logged));
  ranks.forEach((r, i) => expectedOf(runs.ranks.get(r)!.info.run_id, logged[i], expected));
  for (const [host, samples] of Object.entries(nodes))
    expectedOf(parent, nodePoints(host, samples), expected);
  return expected;
}

/** Before each phase (one ingester run), the points its committed cursors point past. */
async function startPhase(proxy: CountingProxy, committedBefore: Set<string>[], dir: string, n: number) {
  committedBefore[n] = await committedIds(dir, proxy.uri);
  proxy.phase = n;
}

/** The real run, as a new job (its own job id, so its runs are its own on the shared server). */
async function copyRealRun(): Promise<string> {
  const dir = await makeRunDir();
  const job = JSON.parse(await fs.readFile(path.join(FIXTURE, 'job.json'), 'utf8'));
  await fs.writeFile(path.join(dir, 'job.json'), JSON.stringify({ ...job, job_id: uniqueName('sys') }));
  for (const f of await fs.readdir(path.join(FIXTURE, 'logs')))
    await fs.copyFile(path.join(FIXTURE, 'logs', f), path.join(dir, 'logs', f));
  return dir;
}

test('offline ingest, then sync: the parent has one series per node per metric, once; rank runs none; a second sync adds none', async () => {
  await withCountingProxy(mlflowUp(), offlineThenSync);
});

async function offlineThenSync(proxy: CountingProxy): Promise<void> {
  const uri = proxy.uri; // the real server, through the counting proxy
  const client = await MlflowClient.connect(uri, {});
  const experiment = uniqueName('system');
  const dir = await copyRealRun();
  const committedBefore: Set<string>[] = [];
  const off = await ingestRunDir(dir, { env: {}, experiment });
  expect(off.trackingUri).toBeUndefined();
  expect(proxy.sent).toEqual([]); // offline: nothing left the run dir
  await startPhase(proxy, committedBefore, dir, 1);
  const s = await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: uri }, experiment });
  expect(s).toMatchObject({ complete: true, status: 'FINISHED', pending: 0, pointsSent: off.pointsSpooled });
  const runs = await jobRuns(client, s.experimentId as string, await jobKeyOf(dir));
  expect(runs.all.length).toBe(4);
  const parent = runs.parent.info.run_id;
  const hosts = ['tlnode1', 'tlnode2', 'tlnode3'];
  for (const host of hosts) {
    const samples = await sampleLines(path.join(dir, 'logs', `node-${host}.resources.jsonl`));
    const ms = samples.map((x) => Math.round(x.t * 1000));
    const series = (f: (x: (typeof samples)[number]) => number) => samples.map((x, i) => [i, f(x), ms[i]]);
    expect(await history(client, parent, `system/${host}/cpu_utilization_percentage`)).toEqual(
      series((x) => x.cpu_util),
    );
    expect(await history(client, parent, `system/${host}/system_memory_usage_megabytes`)).toEqual(
      series((x) => toMB(x.mem_used_mb)),
    );
    expect(await history(client, parent, `system/${host}/system_memory_usage_percentage`)).toEqual(
      series((x) => (100 * x.mem_used_mb) / x.mem_total_mb),
    );
    expect(await history(client, parent, `system/${host}/job_cpu_utilization_percentage`)).toEqual(
      series((x) => x.job.cpu_util),
    );
    expect(await history(client, parent, `system/${host}/job_memory_rss_megabytes`)).toEqual(
      series((x) => toMB(x.job.rss_mb)),
    );
  }
  const parentSystem = ((await client.getRun(parent)).data.metrics ?? [])
    .map((m) => m.key)
    .filter((k) => k.startsWith('system/'))
    .sort();
  expect(parentSystem).toEqual(
    hosts
      .flatMap((h) =>
        [
          'cpu_utilization_percentage',
          'system_memory_usage_megabytes',
          'system_memory_usage_percentage',
          'job_cpu_utilization_percentage',
          'job_memory_rss_megabytes',
        ].map((n) => `system/${h}/${n}`),
      )
      .sort(),
  );
  for (const r of [0, 1, 2]) {
    const metrics = (await client.getRun(runs.ranks.get(r)!.info.run_id)).data.metrics ?? [];
    expect(metrics.filter((m) => m.key.startsWith('system/'))).toEqual([]); // no GPUs: nothing of its own
  }

  await startPhase(proxy, committedBefore, dir, 2);
  const again = await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: uri }, experiment });
  expect(again).toMatchObject({ complete: true, pointsSent: s.pointsSent, parentRunId: s.parentRunId });

  // Counted on our side: the sync sent every point once (3 nodes x 7 samples x 5 metrics, 3 x 11 losses,
  // their 11 steps x 3 aggregates), the second sync (every cursor committed) nothing.
  const nodes = Object.fromEntries(
    await Promise.all(
      hosts.map(async (h) => [h, await sampleLines(path.join(dir, 'logs', `node-${h}.resources.jsonl`))]),
    ),
  ) as Record<string, Sample[]>;
  const expected = await expectedPoints(dir, runs, [0, 1, 2], nodes);
  expect(expected.size).toBe(3 * 7 * 5 + 3 * 11 + 11 * 3);
  expect(auditSent(proxy.sent, committedBefore, expected)).toEqual(clean(expected.size));
  expect(proxy.sent.filter((x) => x.phase === 2)).toEqual([]);
  expect(proxy.torn).toBe(0);

  // lost remote cursors: everything is sent again (once), and MLflow drops the identical copies
  for (const f of await fs.readdir(path.join(dir, 'tracking')))
    if (f.startsWith('mlflow-')) await fs.rm(path.join(dir, 'tracking', f));
  await startPhase(proxy, committedBefore, dir, 3);
  expect(committedBefore[3].size).toBe(0);
  await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: uri }, experiment });
  for (const host of hosts)
    expect((await history(client, parent, `system/${host}/cpu_utilization_percentage`)).length).toBe(7);
  expect(auditSent(proxy.sent, committedBefore, expected, [3])).toEqual(clean(expected.size));
}

test('live: the node file grows while the job runs; each sample reaches the parent once, not the ranks', async () => {
  await withCountingProxy(mlflowUp(), liveGrowing);
});

async function liveGrowing(proxy: CountingProxy): Promise<void> {
  const uri = proxy.uri; // the real server, through the counting proxy
  const client = await MlflowClient.connect(uri, {});
  const committedBefore: Set<string>[] = [];
  const dir = await makeRunDir();
  await writeJob(dir, jobRecord({ job_id: uniqueName('syslive') }, 2));
  for (const r of [0, 1])
    await fs.writeFile(
      path.join(dir, 'logs', `rank-${r}.json`),
      JSON.stringify({ ...rankFacts(r, 2), host: 'n1' }),
    );
  await appendLines(dir, 0, polyLog(0, 2), 1764669000);
  await fs.writeFile(path.join(dir, 'logs', 'rank-1.out'), ''); // rank 1 prints nothing
  const node = path.join(dir, 'logs', 'node-n1.resources.jsonl');
  const line = (i: number) =>
    JSON.stringify({
      version: 1,
      t: 1764669000 + 2 * i + 0.5,
      dt: 2,
      host: 'n1',
      ncpu: 4,
      cpu_util: 10 + i,
      mem_used_mb: 1000 + i,
      mem_total_mb: 8000,
      alloc_cpus: 2,
      alloc_mem_mb: null,
      job: { nproc: 3, cpu_s: 1, cpu_util: 50, rss_mb: 200 + i },
    });
  await startPhase(proxy, committedBefore, dir, 1);
  const ing = startLiveIngest(dir, {
    env: { MLFLOW_TRACKING_URI: uri },
    experiment: uniqueName('syslive'),
    pollMs: 100,
  });
  const grow = async () => {
    for (let i = 0; i < 12; i++) {
      const text = line(i) + '\n';
      await fs.appendFile(node, text.slice(0, 40)); // a torn line waits for its newline
      await new Promise((r) => setTimeout(r, 60));
      await fs.appendFile(node, text.slice(40));
      await new Promise((r) => setTimeout(r, 60));
      if (i === 5) await waitFor(() => (ing.progress().pointsSent ?? 0) >= 10 + 6 * 5, 30_000); // 5 system metrics a sample on the parent (no GPUs): really live, in MLflow mid-job
    }
  };
  await grow().catch(async (err) => {
    await ing.stop(); // a failed wait must not leave the poll loop running
    throw err;
  });
  await endJob(dir, 'COMPLETED');
  ing.jobEnded('COMPLETED');
  const s = await ing.done;
  expect(s).toMatchObject({ complete: true, status: 'FINISHED', pending: 0 });
  const runs = await jobRuns(client, s.experimentId as string, await jobKeyOf(dir));
  const at = (i: number) => (1764669000 + 2 * i) * 1000 + 500;
  expect(await history(client, runs.parent.info.run_id, 'system/n1/cpu_utilization_percentage')).toEqual(
    Array.from({ length: 12 }, (_, i) => [i, 10 + i, at(i)]),
  );
  expect(await history(client, runs.parent.info.run_id, 'system/n1/job_memory_rss_megabytes')).toEqual(
    Array.from({ length: 12 }, (_, i) => [i, toMB(200 + i), at(i)]),
  );
  for (const r of [0, 1]) expect(await history(client, runs.ranks.get(r)!.info.run_id, CPU)).toEqual([]);
  await startPhase(proxy, committedBefore, dir, 2);
  const again = await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: uri } });
  expect(again.pointsSent).toBe(s.pointsSent);

  // Counted on our side: while the file grew (many polls, torn lines) each of the 12 samples' 5
  // points and rank 0's 10 losses with their aggregates (rank 1 never reported: over rank 0 alone
  // at the end) went out once; the sync after the job sent nothing.
  const samples = Array.from({ length: 12 }, (_, i) => JSON.parse(line(i)) as Sample);
  const expected = await expectedPoints(dir, runs, [0], { n1: samples });
  expect(expected.size).toBe(12 * 5 + 10 + 10 * 3);
  expect(auditSent(proxy.sent, committedBefore, expected)).toEqual(clean(expected.size));
  expect(proxy.sent.filter((x) => x.phase === 2)).toEqual([]);
  expect(proxy.torn).toBe(0);
}
