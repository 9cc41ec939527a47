// Launcher faults that happen on real clusters, on the real test cluster. The tests that mostly
// wait (on a requeue, on a rendezvous timeout) run beside the others; the nodes have room for four
// jobs at once.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import {
  cancelJobs,
  cli,
  clusterEnv,
  jobIdOf,
  lines,
  logFile,
  PYTHON,
  rankFacts,
  readText,
  REPO,
  requireCluster,
  said,
  slurm,
  sleep,
  statusJson,
  tmpDir,
  TRAIN,
  waitFor,
  waitTerminal,
} from '../launcher/cluster';
import { readRunMetrics } from '../../../tracking-plugin';
import { tag } from '../tracking/helpers';
import { holdPort, ingestedRuns, preemptionRecords, submitJob, waitRequeued } from './fault-helpers';

jest.setTimeout(300_000);
const submitted: string[] = [];
const env = clusterEnv();
beforeAll(requireCluster);
afterAll(() => cancelJobs(submitted, env));

const fixture = (name: string) => path.join(REPO, 'test', 'fixtures', 'scripts', name);

test('a rank killed mid-training (SIGKILL): the job fails fast and status names that rank and host', async () => {
  const runDir = path.join(tmpDir('kill'), 'run');
  const id = await submitJob(
    [
      '-N',
      '3',
      '--run-dir',
      runDir,
      '--',
      fixture('pid-then-exec.sh'),
      PYTHON,
      TRAIN,
      '--epochs',
      '1000000',
      '--log-every',
      '1000',
    ],
    env,
    submitted,
  );
  const pidFile = path.join(runDir, 'pids', 'rank-2');
  await waitFor(
    'rank 2 training',
    () =>
      fs.existsSync(logFile(runDir, 'rank-2.out')) &&
      /epoch 0,/.test(readText(logFile(runDir, 'rank-2.out'))),
    120_000,
  );
  const killedAt = Date.now();
  // The namespaces share the pid space: kill exactly rank 2's training process.
  process.kill(Number(readText(pidFile).trim()), 'SIGKILL');
  const st = await waitTerminal(id, env, 90_000);
  expect(st.job.state?.name).toBe('FAILED');
  expect(Date.now() - killedAt).toBeLessThan(75_000); // srun --wait=60 at most, not the 1e6 epochs
  expect(st.failed).toMatchObject({ rank: 2, host: 'tlnode3', exit_code: 137 });
  const text = await cli(['status', id], { env });
  expect(text.stdout).toMatch(/failed: +rank 2 on tlnode3 exited 137 first/);
  // ... and so do the MLflow runs, every point logged before the kill in them once.
  const runs = await ingestedRuns(runDir, 'rank-killed', env);
  expect(runs.parent.info.status).toBe('FAILED');
  expect(['slurm.state', 'failed_rank', 'failed_host'].map((k) => tag(runs.parent, k))).toEqual([
    'FAILED',
    '2',
    'tlnode3',
  ]);
  const killed = runs.ranks.get(2)!;
  expect([killed.info.status, tag(killed, 'host'), tag(killed, 'exit_code')]).toEqual([
    'FAILED',
    'tlnode3',
    '137',
  ]);
});

test('a stale rendezvous file from an earlier start is never used', async () => {
  const runDir = path.join(tmpDir('stale'), 'run');
  const id = await submitJob(
    [
      '-N',
      '3',
      '--run-dir',
      runDir,
      '--sbatch=--hold',
      '--',
      PYTHON,
      TRAIN,
      '--epochs',
      '50',
      '--log-every',
      '10',
    ],
    env,
    submitted,
  );
  // What a crashed earlier start of this job id would leave: a valid-looking, wrong address.
  const stale = path.join(runDir, 'rendezvous', `${id}.r0.a1.addr`);
  fs.writeFileSync(stale, 'version=1\naddr=10.77.77.99\nport=1\nhost=gone\n', { mode: 0o600 });
  expect(slurm(['scontrol', 'release', id], env).code).toBe(0);
  const st = await waitTerminal(id, env, 120_000);
  expect(st.job.state?.name).toBe('COMPLETED');
  for (const r of [0, 1, 2]) expect(rankFacts(runDir, r).master_addr).toBe('10.77.77.11');
  expect(fs.existsSync(stale)).toBe(false);
});

test("a port taken between the check and torch's bind: the ranks start again with a new port", async () => {
  const runDir = path.join(tmpDir('clash'), 'run');
  const r = await cli(
    [
      'submit',
      '-N',
      '3',
      '--run-dir',
      runDir,
      '--follow',
      '--',
      fixture('clash-once.sh'),
      PYTHON,
      TRAIN,
      '--epochs',
      '50',
      '--log-every',
      '10',
    ],
    { env, timeoutMs: 200_000 },
  );
  expect(r.code).toBe(0);
  submitted.push(jobIdOf(r));
  const jobOut = readText(logFile(runDir, 'job.out'));
  expect(jobOut).toContain(
    "attempt 1: the master's port was taken; starting the ranks again with a new port",
  );
  expect(jobOut).toMatch(/port \d+ on tlnode1 was taken before torch could bind it/);
  expect(lines(logFile(runDir, 'rank-2.out')).filter((l) => l.startsWith('epoch 49,'))).toHaveLength(1);
  expect(fs.readdirSync(path.join(runDir, 'rendezvous'))).toEqual([]);
});

test('TRACK_LAUNCH_PORT_RANGE: a port already listening on the master is skipped', async () => {
  // Hold port 24001 on tlnode1 (inside its namespace); allow only 24001-24002.
  const holder = await holdPort(24001, true);
  try {
    const runDir = path.join(tmpDir('range'), 'run');
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--run-dir',
        runDir,
        '--follow',
        '--',
        PYTHON,
        TRAIN,
        '--epochs',
        '50',
        '--log-every',
        '10',
      ],
      // TRACK_LAUNCH_* belongs to track-launch (refused in --env): the ranks inherit it from submit's environment.
      { env: { ...env, TRACK_LAUNCH_PORT_RANGE: '24001-24002' }, timeoutMs: 200_000 },
    );
    expect({ code: r.code, out: r.code === 0 ? '' : said(r) }).toEqual({ code: 0, out: '' });
    submitted.push(jobIdOf(r));
    expect(rankFacts(runDir, 1).master_port).toBe(24002);
  } finally {
    holder.kill('SIGKILL');
  }
});

test.concurrent(
  'preemption: --signal reaches the script, --requeue restarts it, it resumes from its checkpoint',
  async () => {
    const runDir = path.join(tmpDir('preempt'), 'run');
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
        PYTHON,
        TRAIN,
        '--epochs',
        '1500',
      ],
      env,
      submitted,
    );
    await waitFor(
      'epoch 300 on rank 0',
      () =>
        fs.existsSync(logFile(runDir, 'rank-0.out')) &&
        /^epoch 300,/m.test(readText(logFile(runDir, 'rank-0.out'))),
      120_000,
    );
    expect((await cli(['cancel', id, '--signal', 'USR1'], { env })).code).toBe(0);
    // Requeued jobs wait ~2 min before they are eligible again; the test need not.
    await waitRequeued(id, env, 'the requeue (pending again, restart 1)', 60_000, runDir);
    // Slurm revokes the old start's credential with one-second resolution: a start within that
    // second fails ("Job credential revoked"), so let it pass before moving the begin time.
    await sleep(3000);
    slurm(['scontrol', 'update', `jobid=${id}`, 'starttime=now'], env);
    const st = await waitTerminal(id, env, 240_000);
    expect(st.job.state?.name).toBe('COMPLETED');
    expect(st.job.restarts).toBe(1);
    const out0 = readText(logFile(runDir, 'rank-0.out'));
    const stopped = Number(/preempted before epoch (\d+)/.exec(out0)![1]);
    expect(out0).toContain(`resuming after epoch ${stopped - 1}`);
    expect(out0).toMatch(/^epoch 1499,/m);
    // scancel --signal goes through slurmctld, which signals the nodes one by one: at least one
    // record, and one from every rank whose script says the signal came to it.
    expect(preemptionRecords(runDir, 3).length).toBeGreaterThan(0);
    // The restart rendezvoused afresh: its own file (the restart count is in the name).
    for (const r of [0, 1, 2]) {
      expect(rankFacts(runDir, r)).toMatchObject({ restart: 1, master_addr: '10.77.77.11' });
      expect(path.basename(rankFacts(runDir, r).rendezvous_file ?? '')).toBe(`${id}.r1.a1.addr`);
    }
    // In MLflow: one parent for both starts, the restart recorded, the loss continuing across it.
    const runs = await ingestedRuns(runDir, 'requeued', env);
    expect([runs.parent.info.status, tag(runs.parent, 'restarts')]).toEqual(['FINISHED', '1']);
    const steps = (await readRunMetrics(runDir))[0].points.filter((p) => p.key === 'loss').map((p) => p.step);
    expect(steps.some((s) => s < stopped) && steps.some((s) => s >= stopped)).toBe(true);
    expect(new Set(steps).size).toBe(steps.length);
  },
);

/** Submit with rank `stall` stuck in a task prolog (srun reads SLURM_TASK_PROLOG), and follow. */
async function submitWithStalledRank(stall: number) {
  const runDir = path.join(tmpDir('never'), 'run');
  const t0 = Date.now();
  const r = await cli(
    [
      'submit',
      '-N',
      '3',
      '--run-dir',
      runDir,
      '--rendezvous-timeout',
      '8',
      '--follow',
      '--poll',
      '1',
      '--',
      PYTHON,
      TRAIN,
      '--epochs',
      '10',
    ],
    // Through the submitting environment (sbatch exports it to the job; srun reads
    // SLURM_TASK_PROLOG): --env refuses SLURM_* names, which belong to Slurm.
    {
      env: { ...env, SLURM_TASK_PROLOG: fixture('rank-never-starts.sh'), TL_TEST_STALL_RANK: String(stall) },
      timeoutMs: 120_000,
    },
  );
  const id = jobIdOf(r);
  submitted.push(id);
  expect(r.code).toBe(5); // the job's failure, not a hang or the CLI's own error
  expect(Date.now() - t0).toBeLessThan(90_000);
  expect((await statusJson(id, env)).job.state?.name).toBe('FAILED');
  return { id, runDir, out: readText(logFile(runDir, 'job.out')) };
}

test.concurrent(
  "a node that never starts rank 0: the others' discovery times out naming their node and the file, the job ends",
  async () => {
    const { id, runDir, out } = await submitWithStalledRank(0);
    const file = path.join(runDir, 'rendezvous', `${id}.r0.a1.addr`);
    // each waiting rank says which it is, where, and which file stayed missing (unless the first
    // one's exit ended the step before the second timed out)
    expect(out).toMatch(/rank [12] on tlnode[23]: no master address after 8 s/);
    for (const [rank, node] of [
      [1, 'tlnode2'],
      [2, 'tlnode3'],
    ] as const) {
      if (out.includes(`rank ${rank} on ${node}:`))
        expect(out).toContain(
          `rank ${rank} on ${node}: no master address after 8 s: rendezvous file ${file} was not written.`,
        );
    }
    expect(out).toContain('rank 0 (on tlnode1) did not start there, or failed before publishing');
    expect(fs.existsSync(logFile(runDir, 'rank-0.json'))).toBe(false); // it never started
  },
);

test.concurrent(
  "a node that never starts rank 2: rank 0 ends the job after the timeout naming it, instead of torch's 30-minute wait",
  async () => {
    const { runDir, out } = await submitWithStalledRank(2);
    expect(out).toContain(
      'track-launch: rank 0 on tlnode1: 1 of 3 ranks did not start within 8 s: rank(s) 2.',
    );
    expect(fs.existsSync(logFile(runDir, 'rank-2.json'))).toBe(false);
    expect(fs.readdirSync(path.join(runDir, 'rendezvous'))).toEqual([]); // cleaned up
  },
);

describe('discovery, run directly (no Slurm needed for these)', () => {
  const boot = path.join(REPO, 'sbatch', 'rank-bootstrap.sh');
  const rankEnv = (rank: number) => ({
    ...process.env,
    SLURM_PROCID: String(rank),
    SLURM_NTASKS: '2',
    SLURM_LOCALID: '0',
    SLURM_NODEID: String(rank),
    SLURM_STEP_TASKS_PER_NODE: '1(x2)',
    SLURM_JOB_ID: '7',
  });

  test('a rank whose master never publishes times out with a message naming its node and the file', () => {
    const dir = tmpDir('timeout');
    const file = path.join(dir, 'rendezvous', '7.r0.a1.addr');
    const t0 = Date.now();
    const r = spawnSync(
      'bash',
      [boot, '--launcher', 'srun', '--run-dir', dir, '--rdzv-file', file, '--timeout', '2', '--', 'true'],
      { env: rankEnv(1), encoding: 'utf8' },
    );
    expect(r.status).not.toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.stderr).toContain(
      `rank 1 on ${spawnSync('hostname', { encoding: 'utf8' }).stdout.trim()}: no master address after 2 s: rendezvous file ${file} was not written`,
    );
  });

  test('a rendezvous file with a malformed address is refused, not used', () => {
    const dir = tmpDir('bad');
    const file = path.join(dir, 'rendezvous', '7.r0.a1.addr');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'version=1\naddr=999.1.1.1\nport=70000\n');
    const r = spawnSync(
      'bash',
      [boot, '--launcher', 'srun', '--run-dir', dir, '--rdzv-file', file, '--timeout', '5', '--', 'true'],
      { env: rankEnv(1), encoding: 'utf8' },
    );
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("holds addr='999.1.1.1' port='70000', not an IPv4 address and a port");
  });

  test('the published file and its directory are readable by the owner only', () => {
    const dir = tmpDir('perm');
    const file = path.join(dir, 'rendezvous', 'x.addr');
    const r = spawnSync(
      'bash',
      [boot, '--launcher', 'local', '--run-dir', dir, '--rdzv-file', file, '--', 'true'],
      { env: { ...process.env, TRACK_LAUNCH_RANK: '0', TRACK_LAUNCH_WORLD_SIZE: '1' }, encoding: 'utf8' },
    );
    expect(r.status).toBe(0);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(readText(file)).toMatch(/^version=1\naddr=127\.0\.0\.1\nport=\d+\nhost=.+\n$/);
  });
});

// Keeps the linter honest about helpers used only in some tests.
void sleep;
void statusJson;
