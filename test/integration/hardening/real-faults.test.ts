// Faults made by the cluster itself, not simulated: a real time limit (TIMEOUT), followed and with
// nobody running a command, Slurm's own --signal timer before it (requeue), the kernel's OOM killer
// under Slurm's memory cgroup, and another process really listening on the master's port when
// torch binds it.
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
import { countingProxy, type CountingProxy } from '../tracking/counting-proxy';
import { tag } from '../tracking/helpers';
import { mlflowUp } from '../tracking/server';
import {
  endedRuns,
  expectEachPointOnce,
  stopFollowers,
  submitAndHangUp,
  writer,
} from '../tracking-cluster/hang-up';
import { holdPort, ingestedRuns, preemptionRecords, submitJob, waitRequeued } from './fault-helpers';

jest.setTimeout(420_000);
const submitted: string[] = [];
const env = clusterEnv();
let proxy: CountingProxy;
beforeAll(async () => {
  requireCluster();
  proxy = await countingProxy(mlflowUp());
});
afterAll(async () => {
  cancelJobs(submitted, env);
  stopFollowers();
  await proxy?.close();
});

/** `sacct -j <id>` rows (job line and steps) as objects keyed by field name. */
function sacct(id: string, fields: string[]): Record<string, string>[] {
  const r = slurm(['sacct', '-j', id, '--parsable2', '--noheader', `--format=${fields.join(',')}`], env);
  if (r.code !== 0) throw new Error(`sacct -j ${id} failed (exit ${r.code}): ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => Object.fromEntries(l.split('|').map((v, i) => [fields[i], v])));
}

// The three time-limit tests wait on Slurm's clock (a minute or two each): they run side by side,
// as the nodes have room for the three jobs.
test.concurrent(
  'a job that reaches its time limit (--time 1) ends TIMEOUT: follow exits 5, status and MLflow say TIMEOUT',
  async () => {
    const runDir = path.join(tmpDir('timeout'), 'run');
    const t0 = Date.now();
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--time',
        '1',
        '--run-dir',
        runDir,
        '--follow',
        '--poll',
        '2',
        '--',
        PYTHON,
        TRAIN,
        '--epochs',
        '100000000',
        '--log-every',
        '500',
      ],
      { env, timeoutMs: 300_000 },
    );
    const id = jobIdOf(r);
    submitted.push(id);
    expect({ code: r.code, out: r.code === 5 ? '' : said(r) }).toEqual({ code: 5, out: '' });
    // slurmctld ends a job once it is past its limit (checked every 30 s), then TERM, KillWait 5 s, KILL.
    expect(Date.now() - t0).toBeGreaterThan(60_000);
    expect(r.stdout + r.stderr).toMatch(/TIMEOUT/);
    expect((await statusJson(id, env)).job.state?.name).toBe('TIMEOUT');
    const text = await cli(['status', id], { env });
    expect({ code: text.code, timeout: /TIMEOUT/.test(text.stdout) }).toEqual({ code: 0, timeout: true });
    // Accounting agrees: the job line is TIMEOUT after at least its 60 s.
    const [job] = sacct(id, ['JobID', 'State', 'ElapsedRaw', 'Timelimit']);
    expect([job.State, job.Timelimit]).toEqual(['TIMEOUT', '00:01:00']);
    expect(Number(job.ElapsedRaw)).toBeGreaterThanOrEqual(60);
    // The training really ran until it was stopped (it could not have finished 1e8 epochs).
    expect(lines(logFile(runDir, 'rank-0.out')).some((l) => /^epoch 500,/.test(l))).toBe(true);
    const runs = await ingestedRuns(runDir, 'timeout', env);
    expect([runs.parent.info.status, tag(runs.parent, 'slurm.state')]).toEqual(['FAILED', 'TIMEOUT']);
  },
);

test.concurrent(
  "Slurm's own --signal USR1@30 timer (time limit 2 min) preempts the job: the signalled ranks record it, it requeues and completes",
  async () => {
    const runDir = path.join(tmpDir('sigtimer'), 'run');
    const submittedAt = Date.now() / 1000;
    const id = await submitJob(
      [
        '-N',
        '3',
        '--time',
        '2',
        '--signal',
        'USR1@30',
        '--requeue',
        '--run-dir',
        runDir,
        '--',
        path.join(__dirname, 'fixtures', 'train-until-preempted.sh'),
        PYTHON,
        TRAIN,
        '--log-every',
        '100',
      ],
      env,
      submitted,
    );
    // Nobody signals the job but Slurm: it sends USR1 30 s before the limit, give or take its
    // 30 s timer check, i.e. 60-90 s after the start; rank 0 then requeues the job.
    await waitRequeued(
      id,
      env,
      'the requeue after Slurm signalled (pending again, restart 1)',
      200_000,
      runDir,
    );
    // Slurm signals the nodes one by one and the ranks stop together (they agree to): a rank may end
    // before its node is signalled. So at least one record, and one from every rank whose script
    // says the signal came to it; rank 0 requeued whichever rank it was.
    const signals = preemptionRecords(runDir, 3);
    expect(signals.length).toBeGreaterThan(0);
    // Before the time limit (the job started after it was submitted), not at it.
    for (const s of signals) expect(s.t - submittedAt).toBeLessThan(120);
    // As the manual preemption test: skip the ~2 min a requeued job waits; and give the restart
    // room (10 min) so that the timer does not preempt the short resumed run again.
    await sleep(3000);
    slurm(['scontrol', 'update', `jobid=${id}`, 'timelimit=10'], env);
    slurm(['scontrol', 'update', `jobid=${id}`, 'starttime=now'], env);
    const st = await waitTerminal(id, env, 240_000);
    expect(st.job.state?.name).toBe('COMPLETED');
    expect(st.job.restarts).toBe(1);
    const out0 = readText(logFile(runDir, 'rank-0.out'));
    const stopped = Number(/preempted before epoch (\d+)/.exec(out0)![1]);
    expect(out0).toContain(`resuming after epoch ${stopped - 1}`);
    expect(out0).toMatch(new RegExp(`^epoch ${stopped + 99},`, 'm'));
    for (const r of [0, 1, 2]) expect(rankFacts(runDir, r)).toMatchObject({ restart: 1 });
    // No signal in the resumed start: it ended before any second one.
    expect(preemptionRecords(runDir, 3)).toEqual(signals);
  },
);

test.concurrent(
  'a job that hits --time 1 with nobody running a command (submit hung up) ends FAILED with slurm.state=TIMEOUT',
  async () => {
    const s = await submitAndHangUp(proxy, 'timeout-detached', 1, ['--time', '1'], writer(600, 1));
    submitted.push(s.jobId);
    const runs = await endedRuns(proxy, s, 300_000);
    expect(runs.parent.info.status).toBe('FAILED');
    expect(tag(runs.parent, 'slurm.state')).toBe('TIMEOUT');
    expectEachPointOnce(proxy, runs, s.runDir, 1);
  },
);

test('a rank past its memory (--mem 100M, cgroup limit 400M) is OOM-killed by the kernel: OUT_OF_MEMORY in sacct, the job fails', async () => {
  const runDir = path.join(tmpDir('oom'), 'run');
  const r = await cli(
    [
      'submit',
      '-N',
      '1',
      '--mem',
      '100M',
      '--run-dir',
      runDir,
      '--follow',
      '--poll',
      '1',
      '--',
      PYTHON,
      '-c',
      "import time\nx = b'\\x01' * (1 << 30)\ntime.sleep(5)\nprint('survived 1 GiB')",
    ],
    { env, timeoutMs: 180_000 },
  );
  const id = jobIdOf(r);
  submitted.push(id);
  expect({ code: r.code, out: r.code === 5 ? '' : said(r) }).toEqual({ code: 5, out: '' });
  expect(readText(logFile(runDir, 'rank-0.out'))).not.toContain('survived');
  const st = await statusJson(id, env);
  expect(st.job.state?.name).toBe('FAILED');
  expect(st.failed).toMatchObject({ rank: 0, host: 'tlnode1', exit_code: 137 }); // SIGKILL
  // Slurm saw the kernel's OOM kill in the step's cgroup and says so.
  await waitFor('sacct to have the step', () => sacct(id, ['JobID', 'State']).length >= 3, 30_000);
  const step = sacct(id, ['JobID', 'State', 'ReqMem']);
  expect(step.find((s) => s.JobID === `${id}.0`)?.State).toBe('OUT_OF_MEMORY');
  expect(readText(logFile(runDir, 'job.out'))).toMatch(/Detected \d+ oom-kill event\(s\) in StepId=\d+\.0/);
});

test("a port really taken before torch binds it: torch's bind fails (EADDRINUSE), the ranks start again with a new port", async () => {
  const runDir = path.join(tmpDir('realclash'), 'run');
  const id = await submitJob(
    ['-N', '3', '--run-dir', runDir, '--', PYTHON, TRAIN, '--epochs', '50', '--log-every', '10'],
    env,
    submitted,
  );
  // Rank 0 checked the port and published it; torch binds it only after every rank checked in and
  // python imported torch (seconds): take the port in that window, as another program could.
  const file = path.join(runDir, 'rendezvous', `${id}.r0.a1.addr`);
  const port = await waitFor(
    'rank 0 to publish its port',
    () => {
      try {
        const m = /^port=(\d+)$/m.exec(readText(file));
        return m ? Number(m[1]) : undefined;
      } catch {
        return undefined;
      }
    },
    120_000,
    20,
  );
  const holder = await holdPort(port);
  try {
    const st = await waitTerminal(id, env, 200_000);
    expect(st.job.state?.name).toBe('COMPLETED');
    const err0 = readText(logFile(runDir, 'rank-0.err'));
    expect(err0).toContain(`:${port} (errno: 98 - Address already in use)`); // torch's own words
    const jobOut = readText(logFile(runDir, 'job.out'));
    expect(jobOut).toContain(`port ${port} on tlnode1 was taken before torch could bind it`);
    expect(jobOut).toContain(
      "attempt 1: the master's port was taken; starting the ranks again with a new port",
    );
    for (const r of [0, 1, 2]) {
      expect(rankFacts(runDir, r).master_port).not.toBe(port);
      expect(path.basename(rankFacts(runDir, r).rendezvous_file ?? '')).toBe(`${id}.r0.a2.addr`);
    }
    expect(lines(logFile(runDir, 'rank-2.out')).filter((l) => l.startsWith('epoch 49,'))).toHaveLength(1);
  } finally {
    holder.kill('SIGKILL');
  }
});
