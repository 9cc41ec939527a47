// Real preemption: a job followed live by `submit --follow` into MLflow is preempted by a plain sbatch
// job in a partition with a higher PriorityTier (preempt/partition_prio, PreemptMode=REQUEUE in
// test/cluster/slurm.conf.in), requeued by Slurm, runs again and completes. The follow ends only
// then, and MLflow keeps one parent run with the restart counted and the job's final status.
import * as fs from 'fs';
import * as path from 'path';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import {
  cancelJobs,
  cli,
  clusterEnv,
  lines,
  logFile,
  PYTHON,
  readText,
  requireCluster,
  said,
  slurm,
  statusJson,
  tmpDir,
  TRAIN,
  waitFor,
  writtenJobRecord,
} from '../launcher/cluster';
import { history, jobRuns, tag } from '../tracking/helpers';
import { mlflowUp, uniqueName } from '../tracking/server';

jest.setTimeout(360_000);

const NODE = 'tlnode3';
const PARTITION = 'preempt';
const env = clusterEnv();
const submitted: string[] = [];

// The partition exists only while this test runs: every other test sees the cluster's one partition.
beforeAll(() => {
  requireCluster();
  slurm(['scontrol', 'delete', `PartitionName=${PARTITION}`], env);
  const r = slurm(
    ['scontrol', 'create', `PartitionName=${PARTITION}`, 'Nodes=tlnode[1-3]', 'PriorityTier=2', 'State=UP'],
    env,
  );
  if (r.code !== 0) throw new Error(`could not create partition ${PARTITION}: ${r.stderr}`);
});

afterAll(async () => {
  cancelJobs(submitted, env);
  await waitFor(
    'the partition to be deleted (no job left in it)',
    () => {
      const r = slurm(['scontrol', 'delete', `PartitionName=${PARTITION}`], env);
      return r.code === 0 || /Invalid partition name/.test(r.stderr);
    },
    30_000,
  ).catch(() => undefined);
});

test('a preempted and requeued job is followed to its real end; MLflow keeps one parent run', async () => {
  const uri = mlflowUp();
  const experiment = uniqueName('preempt');
  const runDir = path.join(tmpDir('preempt'), 'run');
  const release = path.join(tmpDir('preemptor'), 'release');
  const follow = cli(
    [
      'submit',
      '-N',
      '1',
      '--nodelist',
      NODE,
      '--exclusive',
      '--name',
      'poly-preempt',
      '--experiment',
      experiment,
      '--run-dir',
      runDir,
      '--follow',
      '--poll',
      '0.5',
      '--',
      PYTHON,
      TRAIN,
      '--epochs',
      '4000',
      '--log-every',
      '200',
    ],
    { env: { ...env, MLFLOW_TRACKING_URI: uri }, timeoutMs: 300_000 },
  );
  let followed: Awaited<typeof follow> | undefined;
  void follow.then((r) => (followed = r));

  const id = await waitFor('the job id in job.json', () => writtenJobRecord(runDir)?.job_id, 60_000);
  submitted.push(id);
  await waitFor(
    'epoch 400 on rank 0',
    () =>
      fs.existsSync(logFile(runDir, 'rank-0.out')) &&
      /^epoch 400,/m.test(readText(logFile(runDir, 'rank-0.out'))),
    120_000,
  );

  // A plain sbatch job in the higher tier, on the job's node, holding it until told to go.
  const pre = slurm(
    [
      'sbatch',
      '--parsable',
      '-p',
      PARTITION,
      '-w',
      NODE,
      '--exclusive',
      '-J',
      'preemptor',
      '-o',
      '/dev/null',
      '--wrap',
      `while [ ! -e ${release} ]; do sleep 0.2; done`,
    ],
    env,
  );
  expect({ code: pre.code, stderr: pre.stderr }).toEqual({ code: 0, stderr: '' });
  const preemptor = pre.stdout.trim();
  submitted.push(preemptor);

  // Slurm requeues the job (slurmctld: pending again, restart 1); the follow sees that and goes on.
  const requeued = await waitFor(
    'the follow to record the requeue (PENDING, restarts 1) in job.json',
    () => {
      const rec = writtenJobRecord(runDir);
      return rec?.restarts === 1 && rec.state?.name === 'PENDING' && rec;
    },
    60_000,
    200,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; job.json's state: ${JSON.stringify(writtenJobRecord(runDir)?.state)}`);
  });
  expect(requeued.state?.ended_at).toBeUndefined();
  expect(followed).toBeUndefined();

  fs.writeFileSync(release, '');
  await waitFor(
    'the preemptor to end',
    () => /JobState=COMPLETED/.test(slurm(['scontrol', 'show', 'job', '-o', preemptor], env).stdout),
    60_000,
  );
  // A requeued job waits ~2 min before it may start again; start it now. Slurm revokes the preempted
  // start's credential with one-second resolution: a start within that second would fail.
  const end = await waitFor(
    'accounting to record the preempted start',
    () =>
      /^\d+\|PREEMPTED\|(\S+)$/m.exec(
        slurm(['sacct', '-D', '-n', '-P', '-j', id, '-o', 'JobID,State,End'], env).stdout,
      )?.[1],
    30_000,
  );
  await waitFor('a second past the preempted start', () => Date.now() > Date.parse(`${end}Z`) + 2000, 10_000);
  expect(slurm(['scontrol', 'update', `jobid=${id}`, 'starttime=now'], env).code).toBe(0);

  const r = await follow;
  expect({ code: r.code, said: r.code === 0 ? '' : said(r) }).toEqual({ code: 0, said: '' });
  // --follow's progress (a line per change): running, pending again after the preemption, completed.
  const states = r.stderr
    .split('\n')
    .map((l) => new RegExp(`^job ${id}: ([A-Z_]+)`).exec(l)?.[1])
    .filter((s) => s !== undefined);
  expect(states.join(' ')).toMatch(/RUNNING.* PENDING.* RUNNING.* COMPLETED$/);
  expect(states).not.toContain('PREEMPTED');
  const st = await statusJson(id, env);
  expect([st.job.state?.name, st.job.restarts]).toEqual(['COMPLETED', 1]);

  // Rank 0 ran twice (from the start each time: no checkpoint without --signal).
  const out0 = lines(logFile(runDir, 'rank-0.out'));
  expect(out0.filter((l) => l.startsWith('epoch 0,'))).toHaveLength(2);
  expect(out0.filter((l) => l.startsWith('epoch ')).pop()).toMatch(/^epoch 3999,/);

  const client = await MlflowClient.connect(uri);
  const exp = await client.getExperimentByName(experiment);
  const key = JSON.parse(readText(path.join(runDir, 'tracking', 'state.json'))).job_key as string;
  const runs = await jobRuns(client, exp!.experiment_id, key); // throws unless one parent, one run per rank
  expect(runs.all).toHaveLength(2);
  expect([runs.parent.info.status, tag(runs.parent, 'restarts'), tag(runs.parent, 'slurm.state')]).toEqual([
    'FINISHED',
    '1',
    'COMPLETED',
  ]);
  expect(runs.ranks.get(0)!.info.status).toBe('FINISHED');
  // Both starts' points, in the one rank run.
  const logged = out0.filter((l) => /^epoch \d+, loss = /.test(l)).length;
  expect(await history(client, runs.ranks.get(0)!.info.run_id, 'loss')).toHaveLength(logged);
});
