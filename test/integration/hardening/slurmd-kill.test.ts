// Issue #6 item 2: a node's slurmd is killed (SIGKILL) mid-job. Slurm declares the node down
// (SlurmdTimeout) and ends the job NODE_FAIL; `submit --follow` reports that state (exit 5),
// MLflow gets it mapped (FAILED), and every metric line the ranks wrote is in MLflow exactly once.
// The cluster is repaired afterwards (test/cluster/up) and the test waits until all 3 nodes are
// usable again.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { readRunMetrics } from '../../../tracking-plugin';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import {
  cancelJobs,
  cli,
  clusterEnv,
  lines,
  logFile,
  parseSeedLine,
  PYTHON,
  readText,
  REPO,
  requireCluster,
  slurm,
  statusJson,
  tmpDir,
  TRAIN,
  waitFor,
} from '../launcher/cluster';
import { history, jobRuns, tag, triples } from '../tracking/helpers';
import { mlflowUp, uniqueName } from '../tracking/server';

jest.setTimeout(420_000);
const submitted: string[] = [];
const STATE = path.join(REPO, 'test', 'cluster', '.state');
let runDir = '';
beforeAll(requireCluster);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** Repair: restart what test/cluster/up finds missing, then wait for 3 usable nodes. */
async function repairCluster(): Promise<void> {
  execFileSync(path.join(REPO, 'test', 'cluster', 'up'), { stdio: 'pipe', timeout: 120_000 });
  await waitFor(
    'tlnode1-3 back in service',
    () => {
      const r = slurm(['sinfo', '-h', '-N', '-o', '%N %t']);
      const states = r.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(/\s+/)[1]);
      return states.length === 3 && states.every((s) => /^(idle|mix|alloc|comp)$/.test(s));
    },
    120_000,
    1000,
  );
}

afterAll(async () => {
  cancelJobs(submitted);
  // Rank processes on the lost node have no slurmd to stop them: stop them by their pids.
  const pids =
    runDir && fs.existsSync(path.join(runDir, 'pids')) ? fs.readdirSync(path.join(runDir, 'pids')) : [];
  for (const f of pids) {
    const pid = Number(readText(path.join(runDir, 'pids', f)).trim());
    if (pid > 1 && alive(pid)) process.kill(pid, 'SIGKILL');
  }
  await repairCluster();
});

test('slurmd killed on tlnode3 mid-job: NODE_FAIL, mapped in MLflow, no metric point lost or duplicated', async () => {
  const uri = mlflowUp();
  const experiment = uniqueName('slurmd-kill');
  const env = clusterEnv({ MLFLOW_TRACKING_URI: uri, MLFLOW_EXPERIMENT_NAME: experiment });
  runDir = path.join(tmpDir('slurmd'), 'run');
  const fixture = path.join(REPO, 'test', 'fixtures', 'scripts', 'pid-then-exec.sh');
  // --no-requeue: Slurm's JobRequeue=1 would otherwise requeue the batch job after the node failure.
  const follow = cli(
    [
      'submit',
      '-N',
      '3',
      '--sbatch=--no-requeue',
      '--follow',
      '--poll',
      '1',
      '--json',
      '--run-dir',
      runDir,
      '--',
      fixture,
      PYTHON,
      TRAIN,
      '--epochs',
      '1000000',
      '--log-every',
      '200',
    ],
    { env, timeoutMs: 360_000 },
  );

  await waitFor(
    'rank 2 training on tlnode3',
    () =>
      fs.existsSync(logFile(runDir, 'rank-2.out')) &&
      /^epoch 400,/m.test(readText(logFile(runDir, 'rank-2.out'))),
    150_000,
  );
  const job = JSON.parse(readText(path.join(runDir, 'job.json'))).job_id as string;
  submitted.push(job);
  const slurmdPid = Number(readText(path.join(STATE, 'run', 'slurmd-tlnode3.pid')).trim());
  expect(fs.readFileSync(`/proc/${slurmdPid}/comm`, 'utf8').trim()).toBe('slurmd');
  process.kill(slurmdPid, 'SIGKILL');
  const killedAt = Date.now();

  const r = await follow;
  const out = JSON.parse(r.stdout.split(/\n(?=\{)/)[0]) as {
    state: { name: string };
    tracking: { complete: boolean; pending: number; status?: string } | null;
  };
  expect({ code: r.code, state: out.state.name }).toEqual({ code: 5, state: 'NODE_FAIL' });
  expect(Date.now() - killedAt).toBeLessThan(180_000);
  expect(r.stdout + r.stderr).toContain(`job ${job} ended NODE_FAIL`); // --json: the error is JSON on stdout
  expect((await statusJson(job, env)).job.state?.name).toBe('NODE_FAIL');
  expect(out.tracking).toMatchObject({ complete: true, pending: 0, status: 'FAILED' });

  // Every complete metric line of every rank is in MLflow once, with its own timestamp.
  const client = await MlflowClient.connect(uri, {});
  const exp = await client.getExperimentByName(experiment);
  const runs = await jobRuns(
    client,
    exp!.experiment_id,
    JSON.parse(readText(path.join(runDir, 'tracking', 'state.json'))).job_key,
  );
  expect(runs.ranks.size).toBe(3);
  expect(runs.parent.info.status).toBe('FAILED');
  expect(tag(runs.parent, 'slurm.state')).toBe('NODE_FAIL');
  const series = await readRunMetrics(runDir);
  for (const [rank, run] of runs.ranks) {
    const seedLines = lines(logFile(runDir, `rank-${rank}.out`)).filter(
      (l) => parseSeedLine(l) !== undefined,
    ).length;
    const h = await history(client, run.info.run_id, 'loss');
    expect({
      rank,
      mlflow: h.length,
      spooled: series[rank].points.filter((p) => p.key === 'loss').length,
    }).toEqual({ rank, mlflow: seedLines, spooled: seedLines });
    expect(h).toEqual(triples(series[rank].points, 'loss'));
    expect(seedLines).toBeGreaterThanOrEqual(3);
  }
});
