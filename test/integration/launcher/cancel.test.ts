// `cancel` stops a running job; status reaches CANCELLED. A job that has ended is not cancelled:
// its state is said and the exit status is 3.
import * as fs from 'fs';
import * as path from 'path';
import {
  PYTHON,
  StatusJson,
  TRAIN,
  cancelJobs,
  cli,
  clusterEnv,
  jobIdOf,
  logFile,
  parseSeedLine,
  rankFacts,
  requireCluster,
  said,
  statusJson,
  tmpDir,
  waitFor,
} from './cluster';

jest.setTimeout(180_000);

describe('cancel', () => {
  const env = clusterEnv();
  const jobs: string[] = [];
  beforeAll(() => requireCluster());
  afterAll(() => cancelJobs(jobs, env));

  let cancelled: StatusJson | undefined;
  let runDir = '';

  it('cancels a running 3-rank job: status is CANCELLED within 30 s', async () => {
    runDir = path.join(tmpDir('cancel'), 'run');
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--run-dir',
        runDir,
        '--',
        PYTHON,
        TRAIN,
        '--epochs',
        '1000000',
        '--log-every',
        '200',
      ],
      { env },
    );
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 0 });
    const jobId = jobIdOf(r);
    jobs.push(jobId);

    // RUNNING, all 3 ranks started, and each is training (has printed a seed line).
    const training = (rank: number) => {
      const f = logFile(runDir, `rank-${rank}.out`);
      return (
        fs.existsSync(f) &&
        fs
          .readFileSync(f, 'utf8')
          .split('\n')
          .some((l) => parseSeedLine(l)?.rank === rank)
      );
    };
    await waitFor(
      'the job to run with 3 ranks training',
      async () => {
        const s = await statusJson(jobId, env);
        return s.job.state?.name === 'RUNNING' && s.ranks.length === 3 && [0, 1, 2].every(training);
      },
      90_000,
      1000,
    );

    const c = await cli(['cancel', jobId], { env });
    expect({ code: c.code, out: said(c) }).toMatchObject({ code: 0 });
    expect(c.stderr).toContain(`cancelled job ${jobId}`);
    const t0 = Date.now();
    const s = await waitFor(
      'state CANCELLED',
      async () => {
        const st = await statusJson(jobId, env);
        return st.job.state?.name === 'CANCELLED' ? st : undefined;
      },
      30_000,
      1000,
    );
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(s.job.state?.name).toBe('CANCELLED');
    // A second look still says CANCELLED (the final state is recorded in job.json).
    expect((await statusJson(jobId, env)).job.state?.name).toBe('CANCELLED');
    // Every rank's bootstrap saw the end (TERM forwarded, facts written with an exit code).
    await waitFor(
      'all ranks to record their end',
      () => [0, 1, 2].every((r) => rankFacts(runDir, r).exit_code !== undefined),
      30_000,
    );
    cancelled = await statusJson(jobId, env);
  });

  it('a cancelled job names no failed rank (the ranks ended because of the cancel)', () => {
    expect(cancelled).toBeDefined();
    expect(cancelled!.job.state?.name).toBe('CANCELLED');
    expect(cancelled!.job.state?.failed_rank).toBeUndefined();
    expect(cancelled!.job.state?.failed_host).toBeUndefined();
  });

  it('a job that has completed: cancel names its state and exits 3', async () => {
    const dir = path.join(tmpDir('cancel-done'), 'run');
    const r = await cli(['submit', '-N', '1', '--run-dir', dir, '--', PYTHON, '-c', 'print(1)'], { env });
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 0 });
    const jobId = jobIdOf(r);
    jobs.push(jobId);
    await waitFor(
      'state COMPLETED',
      async () => (await statusJson(jobId, env)).job.state?.name === 'COMPLETED',
      90_000,
      1000,
    );
    for (const args of [
      ['cancel', jobId],
      ['cancel', jobId, '--signal', 'USR1'],
    ]) {
      const c = await cli(args, { env });
      expect({ code: c.code, err: c.stderr }).toMatchObject({
        code: 3,
        err: expect.stringContaining(`job ${jobId} is not running (state COMPLETED)`),
      });
      expect(c.stderr).not.toContain('cancelled job');
    }
    expect((await statusJson(jobId, env)).job.state?.name).toBe('COMPLETED');
  });
});
