// Issue 6, launcher side: faults that happen on real clusters, on the real test cluster.
import { spawn, spawnSync } from 'child_process';
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

jest.setTimeout(300_000);
const submitted: string[] = [];
const env = clusterEnv();
beforeAll(requireCluster);
afterAll(() => cancelJobs(submitted, env));

const fixture = (name: string) => path.join(REPO, 'test', 'fixtures', 'scripts', name);

test('a rank killed mid-training (SIGKILL): the job fails fast and status names that rank and host', async () => {
  const runDir = path.join(tmpDir('kill'), 'run');
  const sub = await cli(
    [
      'submit',
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
    { env },
  );
  expect(sub.code).toBe(0);
  const id = jobIdOf(sub);
  submitted.push(id);
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
});

test('a stale rendezvous file from an earlier start is never used', async () => {
  const runDir = path.join(tmpDir('stale'), 'run');
  const sub = await cli(
    [
      'submit',
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
    { env },
  );
  expect(sub.code).toBe(0);
  const id = jobIdOf(sub);
  submitted.push(id);
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
  const holder = spawn(
    'nsenter',
    [
      '--net=/var/run/netns/tl-node1',
      PYTHON,
      '-c',
      'import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 24001)); s.listen(); print("ready", flush=True); time.sleep(300)',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
    const runDir = path.join(tmpDir('range'), 'run');
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--run-dir',
        runDir,
        '--env',
        'TRACK_LAUNCH_PORT_RANGE=24001-24002',
        '--follow',
        '--',
        PYTHON,
        TRAIN,
        '--epochs',
        '50',
        '--log-every',
        '10',
      ],
      { env, timeoutMs: 200_000 },
    );
    expect({ code: r.code, out: r.code === 0 ? '' : said(r) }).toEqual({ code: 0, out: '' });
    submitted.push(jobIdOf(r));
    expect(rankFacts(runDir, 1).master_port).toBe(24002);
  } finally {
    holder.kill('SIGKILL');
  }
});

test('preemption: --signal reaches the script, --requeue restarts it, it resumes from its checkpoint', async () => {
  const runDir = path.join(tmpDir('preempt'), 'run');
  const sub = await cli(
    [
      'submit',
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
    { env },
  );
  expect(sub.code).toBe(0);
  const id = jobIdOf(sub);
  submitted.push(id);
  await waitFor(
    'epoch 300 on rank 0',
    () =>
      fs.existsSync(logFile(runDir, 'rank-0.out')) &&
      /^epoch 300,/m.test(readText(logFile(runDir, 'rank-0.out'))),
    120_000,
  );
  expect((await cli(['cancel', id, '--signal', 'USR1'], { env })).code).toBe(0);
  // Requeued jobs wait ~2 min before they are eligible again; the test need not.
  await waitFor(
    'the requeue (pending again, restart 1)',
    () => {
      const job = slurm(['scontrol', 'show', 'job', '-o', id], env).stdout;
      return /Restarts=1/.test(job) && /JobState=PENDING/.test(job);
    },
    60_000,
  );
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
  const signals = lines(logFile(runDir, 'signals.jsonl')).map((l) => JSON.parse(l));
  expect(signals.map((s) => s.rank).sort()).toEqual([0, 1, 2]);
  expect(signals.find((s) => s.rank === 0)).toMatchObject({ signal: 'USR1', restart: 0, requeue: true });
  expect(rankFacts(runDir, 0).restart).toBe(1);
});

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
