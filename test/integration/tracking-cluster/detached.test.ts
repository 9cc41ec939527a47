// Tracking with nobody at a terminal, on the real cluster: `submit` without --follow starts a
// detached follower; the submitting CLI is killed with SIGHUP right after, and the follower still
// sends the points live, each once (counted at a proxy in front of MLflow), and ends the runs with
// Slurm's final state: FINISHED for a job that completes, KILLED after `cancel` (which also ends
// the follower); FAILED after a time limit is in hardening/real-faults.test.ts, beside the other
// time-limit test. `ingest --all` (cron) brings a job tracked by nobody up to date once, and a
// second run sends nothing.
import * as fs from 'fs';
import * as path from 'path';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import {
  cli,
  clusterEnv,
  jobIdOf,
  requireCluster,
  said,
  scontrolState,
  sleep,
  tmpDir,
  waitFor,
} from '../launcher/cluster';
import { countingProxy, pointId, type CountingProxy } from '../tracking/counting-proxy';
import { jobRuns, tag } from '../tracking/helpers';
import { committedIds } from '../tracking/sent-ledger';
import { mlflowUp, uniqueName } from '../tracking/server';
import { alive, endedRuns, expectEachPointOnce, stopFollowers, submitAndHangUp, writer } from './hang-up';

jest.setTimeout(330_000);

let proxy: CountingProxy;

beforeAll(async () => {
  requireCluster();
  proxy = await countingProxy(mlflowUp());
});
afterAll(async () => {
  stopFollowers();
  await proxy?.close();
});

test.concurrent('SIGHUP after submit: the follower sends live, each point once, runs FINISHED', async () => {
  const s = await submitAndHangUp(proxy, 'hup', 3, ['--poll', '1'], writer(40, 0.5));
  // submit's --poll is the follower's cycle
  const argv = fs.readFileSync(`/proc/${s.follower}/cmdline`, 'utf8').split('\0');
  expect(argv.slice(argv.indexOf('--poll'), argv.indexOf('--poll') + 2)).toEqual(['--poll', '1']);
  // the points grow while Slurm says RUNNING: tracked live, not only at the end
  const counts: number[] = [];
  await waitFor('the job to start', () => scontrolState(s.jobId, s.env) === 'RUNNING', 120_000);
  // status and list name the follower: where it runs, that it is alive
  const st = await cli(['status', s.jobId, '--json'], { env: s.env, timeoutMs: 60_000 });
  expect(JSON.parse(st.stdout)).toMatchObject({
    tracker: { placement: 'login', pid: s.follower, alive: true },
    untracked: false,
  });
  const ls = await cli(['list', '--json'], { env: s.env, timeoutMs: 60_000 });
  expect(JSON.parse(ls.stdout).jobs[0]).toMatchObject({
    job_id: s.jobId,
    tracker: { placement: 'login', pid: s.follower, alive: true },
    untracked: false,
  });
  while (scontrolState(s.jobId, s.env) === 'RUNNING') {
    counts.push(proxy.sent.filter((p) => p.key === 'loss' && p.timestamp > 0).length);
    await sleep(1000);
  }
  const runs = await endedRuns(proxy, s, 120_000);
  const grew = new Set(counts.filter((c) => c > 0)).size;
  expect({ grew: grew >= 2, counts }).toEqual({ grew: true, counts });
  expect(runs.all.map((r) => r.info.status)).toEqual(['FINISHED', 'FINISHED', 'FINISHED', 'FINISHED']);
  expect(tag(runs.parent, 'slurm.state')).toBe('COMPLETED');
  expectEachPointOnce(proxy, runs, s.runDir, 3);
});

test.concurrent('cancel: the job ends CANCELLED, its follower ends the runs KILLED and exits', async () => {
  const s = await submitAndHangUp(proxy, 'cancel', 1, [], writer(600, 1));
  await waitFor(
    'a point of the job',
    () => fs.existsSync(path.join(s.runDir, 'tracking', 'state.json')),
    120_000,
  );
  const c = await cli(['cancel', s.jobId], { env: s.env, timeoutMs: 120_000 });
  expect({ code: c.code, said: c.code === 0 ? '' : said(c) }).toEqual({ code: 0, said: '' });
  const runs = await endedRuns(proxy, s, 60_000);
  expect(runs.parent.info.status).toBe('KILLED');
  expect(tag(runs.parent, 'slurm.state')).toBe('CANCELLED');
});

test.concurrent(
  'ingest --all (cron): a job nobody tracked, brought up to date once; again: nothing sent',
  async () => {
    const runDir = path.join(tmpDir('cron'), 'run');
    const experiment = uniqueName('cron');
    const env = clusterEnv({ MLFLOW_TRACKING_URI: proxy.uri });
    const sub = await cli(
      [
        'submit',
        '-N',
        '2',
        '--track',
        'none',
        '--experiment',
        experiment,
        '--run-dir',
        runDir,
        '--metrics-format',
        'jsonl',
        '--',
        ...writer(10, 0.2),
      ],
      { env, timeoutMs: 120_000 },
    );
    expect({ code: sub.code, said: sub.code === 0 ? '' : said(sub) }).toEqual({ code: 0, said: '' });
    const jobId = jobIdOf(sub);
    await waitFor('the job to end', () => scontrolState(jobId, env) === 'COMPLETED', 120_000);
    expect(fs.existsSync(path.join(runDir, 'tracking', 'lock'))).toBe(false); // nobody tracked it
    const first = await cli(['ingest', '--all', '--no-report'], { env, timeoutMs: 120_000 });
    expect({ code: first.code, said: first.code === 0 ? '' : said(first) }).toEqual({ code: 0, said: '' });
    const client = await MlflowClient.connect(proxy.uri);
    const exp = await client.getExperimentByName(experiment);
    const key = JSON.parse(fs.readFileSync(path.join(runDir, 'tracking', 'state.json'), 'utf8')).job_key;
    const runs = await jobRuns(client, exp!.experiment_id, key);
    expect(runs.all.map((r) => r.info.status)).toEqual(['FINISHED', 'FINISHED', 'FINISHED']);
    expectEachPointOnce(proxy, runs, runDir, 2);
    const ids = new Set(runs.all.map((r) => r.info.run_id));
    const before = proxy.sent.filter((p) => ids.has(p.runId)).length;
    const again = await cli(['ingest', '--all', '--no-report'], { env, timeoutMs: 120_000 });
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
    expect(proxy.sent.filter((p) => ids.has(p.runId)).length).toBe(before);
  },
);

test.concurrent('a follower killed: status and list warn, ingest --all takes its lock over', async () => {
  const s = await submitAndHangUp(proxy, 'killed', 1, [], writer(40, 0.5));
  const tracker = path.join(s.runDir, 'tracking', 'tracker.json');
  await waitFor('the follower to send', () => fs.existsSync(tracker) && proxy.sent.length > 0, 120_000);
  process.kill(s.follower, 'SIGKILL');
  await waitFor('the follower to die', () => !alive(s.follower), 10_000, 100);
  const st = await cli(['status', s.jobId], { env: s.env, timeoutMs: 60_000 });
  expect(st.stdout).toMatch(
    /warning: +nobody is tracking this job's runs: run `track-launch ingest --follow \d+`/,
  );
  const ls = await cli(['list'], { env: s.env, timeoutMs: 60_000 });
  expect(ls.stdout).toMatch(
    new RegExp(`^${s.jobId} .*\\(untracked: track-launch ingest --follow ${s.jobId}\\)`, 'm'),
  );
  await waitFor('the job to end', () => scontrolState(s.jobId, s.env) === 'COMPLETED', 120_000);
  // what the killed follower committed is never sent again (a point it sent but did not commit may be)
  const committed = await committedIds(s.runDir, proxy.uri);
  const mark = proxy.sent.length;
  const cron = await cli(['ingest', '--all', '--no-report'], { env: s.env, timeoutMs: 120_000 });
  expect({ code: cron.code, said: cron.code === 0 ? '' : said(cron) }).toEqual({ code: 0, said: '' });
  const runs = await endedRuns(proxy, s, 1000);
  expect(runs.all.map((r) => r.info.status)).toEqual(['FINISHED', 'FINISHED']);
  const ids = new Set(runs.all.map((r) => r.info.run_id));
  const resent = proxy.sent.slice(mark).filter((p) => ids.has(p.runId) && committed.has(pointId(p)));
  expect(resent).toEqual([]);
  const rank0 = runs.ranks.get(0)!.info.run_id;
  const steps = new Set(proxy.sent.filter((p) => p.runId === rank0 && p.key === 'loss').map((p) => p.step));
  expect(steps.size).toBe(40);
});

test.concurrent(
  'a follower stopped with SIGTERM saves what it sent, releases the lock and says what is left',
  async () => {
    const s = await submitAndHangUp(proxy, 'term', 1, [], writer(60, 0.5));
    const files = path.join(s.runDir, 'tracking');
    const sent = async () => (await committedIds(s.runDir, proxy.uri)).size > 0;
    await waitFor('the follower to send', sent, 120_000);
    process.kill(s.follower, 'SIGTERM');
    await waitFor('the follower to stop', () => !alive(s.follower), 30_000, 200);
    expect(fs.existsSync(path.join(files, 'lock'))).toBe(false);
    const log = fs.readFileSync(path.join(files, 'follower.log'), 'utf8');
    expect(log).toMatch(/points are not in MLflow yet|points sent/);
    // nothing it committed is sent again by the next tracker
    const committed = await committedIds(s.runDir, proxy.uri);
    await waitFor('the job to end', () => scontrolState(s.jobId, s.env) === 'COMPLETED', 120_000);
    const mark = proxy.sent.length;
    const next = await cli(['ingest', s.jobId, '--no-report'], { env: s.env, timeoutMs: 120_000 });
    expect({ code: next.code, said: next.code === 0 ? '' : said(next) }).toEqual({ code: 0, said: '' });
    expect(proxy.sent.slice(mark).filter((p) => committed.has(pointId(p)))).toEqual([]);
  },
);
