// Issue 3's acceptance on the real cluster: the polynomial example on 3 Slurm nodes, followed
// live by `submit --follow`, lands in MLflow as one parent and 3 rank runs, exactly once, with
// every tag, param, artifact, aggregate and status the run layout promises, the same through the
// official Python client; each node's resource samples are system metrics of its rank run; the
// report (with a resource page per node) is attached; `status` prints the efficiency summary;
// a later `ingest` changes nothing.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { readRunMetrics } from '../../../tracking-plugin/series';
import { pdfPages, pdfText } from '../../unit/reports/helpers/check-output';
import {
  cli,
  clusterEnv,
  jobIdOf,
  NODE_ADDR,
  NODES,
  PYTHON,
  REPO,
  requireCluster,
  said,
  tmpDir,
  TRAIN,
} from '../launcher/cluster';
import { history, jobRuns, triples } from '../tracking/helpers';
import { mlflowUp, readBackWithPython, uniqueName } from '../tracking/server';

jest.setTimeout(300_000);
beforeAll(requireCluster);

test('submit --follow on 3 nodes: parent + 3 rank runs, histories equal the logs, aggregates, status, report', async () => {
  const uri = mlflowUp();
  const experiment = uniqueName('cluster-live');
  const runDir = path.join(tmpDir('live'), 'run');
  const env = clusterEnv({ MLFLOW_TRACKING_URI: uri });
  const r = await cli(
    [
      'submit',
      '-N',
      '3',
      '--name',
      'poly-live',
      '--experiment',
      experiment,
      '--param',
      'lr=0.001',
      '--sample-interval',
      '1',
      '--run-dir',
      runDir,
      '--follow',
      '--',
      PYTHON,
      TRAIN,
      '--epochs',
      '500',
      '--log-every',
      '50',
    ],
    { env, timeoutMs: 240_000 },
  );
  expect({ code: r.code, said: r.code === 0 ? '' : said(r) }).toEqual({ code: 0, said: '' });
  const jobId = jobIdOf(r);
  // --follow's progress (stderr is no TTY here: a line per change): state and ranks started.
  expect(r.stderr).toMatch(new RegExp(`^job ${jobId}: RUNNING  ranks started [0-3]/3`, 'm'));
  expect(r.stderr).toMatch(new RegExp(`^job ${jobId}: COMPLETED  ranks started 3/3`, 'm'));

  const client = await MlflowClient.connect(uri);
  const exp = await client.getExperimentByName(experiment);
  const state = JSON.parse(fs.readFileSync(path.join(runDir, 'tracking', 'state.json'), 'utf8'));
  const runs = await jobRuns(client, exp!.experiment_id, state.job_key);
  expect(runs.all).toHaveLength(4);
  expect(runs.parent.info.status).toBe('FINISHED');
  expect(runs.parent.info.end_time).toBeGreaterThan(0);
  const command = [PYTHON, TRAIN, '--epochs', '500', '--log-every', '50'].join(' ');
  const gitHead = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
  const parentTags = {
    'slurm.job_id': jobId,
    'slurm.cluster': 'tltest', // from the ranks' SLURM_CLUSTER_NAME: sbatch --parsable names no cluster
    'slurm.partition': 'debug', // the default partition, not given to submit
    'slurm.nodelist': 'tlnode[1-3]',
    'slurm.state': 'COMPLETED',
    executor: 'slurm',
    launcher: 'srun',
    backend: 'gloo',
    world_size: '3',
    node_count: '3',
    master_addr: NODE_ADDR[0],
    master_port: expect.stringMatching(/^\d{4,5}$/),
    'mlflow.source.type': 'JOB',
    'mlflow.source.name': command,
    'mlflow.source.git.commit': gitHead,
    'mlflow.user': os.userInfo().username,
  };
  const tagsOf = (r: typeof runs.parent) =>
    Object.fromEntries((r.data.tags ?? []).map((t) => [t.key, t.value]));
  expect(tagsOf(runs.parent)).toMatchObject(parentTags);
  const params = Object.fromEntries((runs.parent.data.params ?? []).map((p) => [p.key, p.value]));
  expect(params).toMatchObject({
    lr: '0.001',
    'job.nodes': '3',
    'job.world_size': '3',
    'job.launcher': 'srun',
    'job.backend': 'gloo',
    'job.command': command,
  });
  const parentFiles = (await client.listArtifacts(runs.parent.info.run_id)).map((f) => f.path);
  expect(parentFiles).toEqual(expect.arrayContaining(['job.sbatch', 'job.json', 'reports']));

  const series = await readRunMetrics(runDir);
  const loss = new Map<number, number[]>(); // step -> every rank's loss
  for (const rank of [0, 1, 2]) {
    const run = runs.ranks.get(rank)!;
    expect(run.info.run_name).toBe(`rank-${rank}`);
    expect(run.info.status).toBe('FINISHED');
    expect(tagsOf(run)).toMatchObject({
      'mlflow.parentRunId': runs.parent.info.run_id,
      rank: String(rank),
      local_rank: '0',
      node_rank: String(rank),
      host: NODES[rank],
      ip: NODE_ADDR[rank],
    });
    const fromLog = triples(series.find((s) => s.rank === rank)!.points, 'loss');
    expect(fromLog.map((t) => t[0])).toEqual([0, 50, 100, 150, 200, 250, 300, 350, 400, 450, 499]);
    expect(await history(client, run.info.run_id, 'loss')).toEqual(fromLog);
    for (const [step, value] of fromLog) loss.set(step, [...(loss.get(step) ?? []), value]);
    const logs = (await client.listArtifacts(run.info.run_id, 'logs')).map((f) => f.path);
    expect(logs).toEqual(expect.arrayContaining([`logs/rank-${rank}.out`]));
    // The node's resource samples, once, as MLflow system metrics of the parent under the node's name
    // (a CPU-only rank run gets none: the samples have no per-process figures); megabytes are 10^6 bytes.
    const samples = fs
      .readFileSync(path.join(runDir, 'logs', `node-${NODES[rank]}.resources.jsonl`), 'utf8')
      .split('\n')
      .filter((l) => l.endsWith('}'))
      .map((l) => JSON.parse(l) as { cpu_util: number; job: { rss_mb: number } });
    expect(samples.length).toBeGreaterThan(0);
    const parentId = runs.parent.info.run_id;
    const cpu = await history(client, parentId, `system/${NODES[rank]}/cpu_utilization_percentage`);
    expect(cpu.map((p) => p[1])).toEqual(samples.map((x) => x.cpu_util));
    const rss = await history(client, parentId, `system/${NODES[rank]}/job_memory_rss_megabytes`);
    expect(rss.map((p) => p[1])).toEqual(samples.map((x) => (x.job.rss_mb * 1024 * 1024) / 1e6));
    expect(await history(client, run.info.run_id, 'system/cpu_utilization_percentage')).toEqual([]);
  }
  // The parent's per-step aggregates are exactly the mean, min and max of the three ranks' values.
  const agg = async (k: string) =>
    new Map((await history(client, runs.parent.info.run_id, `loss/${k}`)).map((p) => [p[0], p[1]]));
  const [mean, min, max] = [await agg('mean'), await agg('min'), await agg('max')];
  expect([...mean.keys()].sort((a, b) => a - b)).toEqual([...loss.keys()].sort((a, b) => a - b));
  for (const [step, values] of loss) {
    expect(values).toHaveLength(3);
    expect(min.get(step)).toBe(Math.min(...values));
    expect(max.get(step)).toBe(Math.max(...values));
    expect(mean.get(step)).toBeCloseTo(values.reduce((a, b) => a + b, 0) / 3, 12);
  }

  // The report: attached, with the loss, evaluation and one resource page per node.
  const reports = (await client.listArtifacts(runs.parent.info.run_id, 'reports')).map((f) => f.path);
  expect(reports).toEqual(
    expect.arrayContaining([
      'reports/report.pdf',
      'reports/loss.png',
      'reports/evaluation.png',
      ...NODES.map((n) => `reports/resources-${n}.png`),
    ]),
  );
  const pdf = path.join(runDir, 'reports', 'report.pdf');
  expect(pdfPages(pdf)).toBeGreaterThanOrEqual(4 + NODES.length);
  const text = pdfText(pdf);
  for (const n of NODES) expect(text).toContain(`Resources on ${n}`);
  expect(text).toContain(jobId);

  // status: the job, its ranks, and the seff-like efficiency summary from the samples.
  const st = await cli(['status', jobId], { env });
  expect(st.code).toBe(0);
  expect(st.stdout).toMatch(/COMPLETED/);
  expect(st.stdout).toMatch(/efficiency: \d+ sample\(s\) from 3 node\(s\)/);
  expect(st.stdout).toMatch(/CPU: +\d+\.\d% of \d\d:\d\d:\d\d core-walltime/);

  // The same runs through the official Python client.
  const py = readBackWithPython(uri, exp!.experiment_id, state.job_key);
  expect(py).toHaveLength(4);
  const pyParent = py.find((r) => r.tags['track_launch.role'] === 'parent')!;
  expect(pyParent.status).toBe('FINISHED');
  expect(pyParent.tags).toMatchObject(parentTags);
  expect(pyParent.params.lr).toBe('0.001');
  expect(pyParent.artifacts).toEqual(expect.arrayContaining(['job.sbatch']));
  for (const rank of [0, 1, 2]) {
    const r = py.find((x) => x.tags.rank === String(rank))!;
    expect(r.tags.host).toBe(NODES[rank]);
    expect(r.artifacts).toEqual(expect.arrayContaining([`logs/rank-${rank}.out`]));
    const sorted = [...r.history.loss].sort((a, b) => a[0] - b[0]);
    expect(sorted).toEqual(triples(series.find((s) => s.rank === rank)!.points, 'loss'));
  }

  // Ingesting again after the job: no new runs, no new points.
  const again = await cli(['ingest', runDir, '--no-report'], { env });
  expect(again.code).toBe(0);
  const after = await jobRuns(client, exp!.experiment_id, state.job_key);
  expect(after.all).toHaveLength(4);
  for (const rank of [0, 1, 2])
    expect(await history(client, after.ranks.get(rank)!.info.run_id, 'loss')).toHaveLength(11);
});
