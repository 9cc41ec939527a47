// Preemption that reaches one node only, as when slurmctld's signal to the other nodes comes late:
// the ranks of examples/polynomial stop together, and rank 0 (never signalled itself) still
// requeues the job because rank 1 recorded the signal.
import * as fs from 'fs';
import * as path from 'path';
import {
  cancelJobs,
  clusterEnv,
  logFile,
  PYTHON,
  readText,
  REPO,
  requireCluster,
  tmpDir,
  TRAIN,
  waitFor,
} from '../launcher/cluster';
import { preemptionRecords, submitJob, waitRequeued } from './fault-helpers';

jest.setTimeout(300_000);
const submitted: string[] = [];
const env = clusterEnv();
beforeAll(requireCluster);
afterAll(() => cancelJobs(submitted, env));

/** The parent pid of `pid`, from /proc (the namespaces share the pid space). */
const parentOf = (pid: number) =>
  Number(
    readText(`/proc/${pid}/stat`)
      .replace(/^.*\) /s, '')
      .split(' ')[1],
  );

test('USR1 to rank 1 only (its script and its bootstrap, by pid): rank 0 requeues the job', async () => {
  const runDir = path.join(tmpDir('one-rank'), 'run');
  const id = await submitJob(
    [
      '-N',
      '3',
      '--signal',
      'USR1@60',
      '--requeue',
      '--run-dir',
      runDir,
      '--',
      path.join(REPO, 'test', 'fixtures', 'scripts', 'pid-then-exec.sh'),
      PYTHON,
      TRAIN,
      '--epochs',
      '100000000',
      '--log-every',
      '1000',
    ],
    env,
    submitted,
  );
  await waitFor(
    'rank 1 training',
    () =>
      fs.existsSync(logFile(runDir, 'rank-1.out')) &&
      /^epoch 0,/m.test(readText(logFile(runDir, 'rank-1.out'))),
    120_000,
  );
  const script = Number(readText(path.join(runDir, 'pids', 'rank-1')).trim());
  const bootstrap = parentOf(script);
  expect(readText(`/proc/${bootstrap}/cmdline`)).toContain('rank-bootstrap.sh');
  process.kill(script, 'SIGUSR1');
  process.kill(bootstrap, 'SIGUSR1');
  // Rank 0 waits up to 60 s for every rank to record the signal or end, then requeues. A rank can
  // hang at exit in torch 1.13's gloo teardown (README, troubleshooting) until srun's --wait=60
  // kills it: the requeue then comes after about 60 s, which this wait leaves room for.
  await waitRequeued(id, env, 'the requeue (pending again, restart 1)', 90_000, runDir);
  const records = preemptionRecords(runDir, 3);
  expect(records.map((s) => s.rank)).toEqual([1]);
  expect(readText(logFile(runDir, 'rank-0.out'))).toMatch(
    /preempted before epoch \d+ \(signal on another rank\)/,
  );
  expect(readText(logFile(runDir, 'job.out'))).toContain(`rank 1 got SIGUSR1: requeueing job ${id}`);
});
