// Issue #2: a rank that fails ends the whole job quickly, and the CLI names it.
import * as path from 'path';
import {
  PYTHON,
  TRAIN,
  cli,
  clusterEnv,
  jobIdOf,
  lines,
  logFile,
  parseSeedLine,
  rankFacts,
  requireCluster,
  said,
  statusJson,
  tmpDir,
} from './cluster';

jest.setTimeout(180_000);

describe('a failing rank', () => {
  const env = clusterEnv();
  beforeAll(() => requireCluster());

  it('--fail-rank 1: submit --follow exits 5 soon, naming rank 1 on tlnode2; status says FAILED, rank 1 on tlnode2', async () => {
    const runDir = path.join(tmpDir('fail'), 'run');
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--follow',
        '--poll',
        '0.5',
        '--run-dir',
        runDir,
        '--',
        PYTHON,
        TRAIN,
        '--epochs',
        '2000',
        '--log-every',
        '100',
        '--fail-rank',
        '1',
      ],
      { env },
    );
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 5 });
    expect(r.ms).toBeLessThan(90_000);
    const jobId = jobIdOf(r);
    expect(r.stderr).toMatch(new RegExp(`job ${jobId} ended FAILED`));
    expect(r.stderr).toMatch(/rank 1 on tlnode2 failed first/);
    expect(r.stderr).toContain(`logs ${jobId} --rank 1`);

    // Rank 1 really stopped itself at the middle epoch, with train.py's exit status 3.
    expect(rankFacts(runDir, 1)).toMatchObject({ rank: 1, host: 'tlnode2', exit_code: 3 });
    const s = await statusJson(jobId, env);
    expect(s.job.state).toMatchObject({ name: 'FAILED', failed_rank: 1, failed_host: 'tlnode2' });
    expect(s.failed).toMatchObject({ rank: 1, host: 'tlnode2', exit_code: 3 });
    // The other ranks did not run to epoch 1999: the job was ended when rank 1 failed.
    for (const rank of [0, 2]) {
      expect(rankFacts(runDir, rank).exit_code).not.toBe(0);
      const epochs = lines(logFile(runDir, `rank-${rank}.out`)).map((l) => parseSeedLine(l)?.epoch ?? -1);
      // Logged every 100: epoch 1000 never finished (its gradient all-reduce waited for rank 1, which left).
      expect(Math.max(...epochs)).toBe(900);
    }
    expect(lines(logFile(runDir, 'rank-1.out')).pop()).toBe('rank 1 fails on purpose at epoch 1000');
    // Promptly: the others ended within seconds of rank 1 (srun --kill-on-bad-exit), not after
    // gloo's 30-minute collective timeout.
    const failedAt = rankFacts(runDir, 1).ended_at!;
    for (const rank of [0, 2]) expect(rankFacts(runDir, rank).ended_at! - failedAt).toBeLessThan(15);
  });
});
