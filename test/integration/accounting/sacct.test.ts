// Accounting on the test cluster (slurmdbd over MariaDB, test/cluster/up): once slurmctld has
// forgotten a finished job (MinJobAge=30 in test/cluster/slurm.conf.in, then its purge pass),
// `track-launch status` still answers, from sacct, and sacct itself holds CPU time and MaxRSS.
import * as path from 'path';
import {
  PYTHON,
  cancelJobs,
  cli,
  clusterEnv,
  jobIdOf,
  requireCluster,
  said,
  scontrolState,
  slurm,
  statusJson,
  tmpDir,
  waitFor,
} from '../launcher/cluster';

jest.setTimeout(240_000);

// ~150 MiB touched page by page, ~3 s of CPU, then a short sleep so the 1 s sampler sees the peak.
const WORK = [
  'import sys, time',
  'x = bytearray(150 * 1024 * 1024)',
  'for i in range(0, len(x), 4096): x[i] = 1',
  't = time.time()',
  'while time.time() - t < 3: pass',
  'time.sleep(2)',
  'sys.exit(int(sys.argv[1]))',
].join('\n');

/** `sacct -j <id> --parsable2` rows as objects keyed by field name (job line and step lines). */
function sacctRows(jobId: string, fields: string[], env: NodeJS.ProcessEnv): Record<string, string>[] {
  const r = slurm(['sacct', '-j', jobId, '--parsable2', '--noheader', `--format=${fields.join(',')}`], env);
  if (r.code !== 0) throw new Error(`sacct -j ${jobId} failed (exit ${r.code}): ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => Object.fromEntries(l.split('|').map((v, i) => [fields[i], v])));
}

/** "[DD-][HH:]MM:SS[.mmm]" (sacct's TotalCPU and Elapsed) in seconds. */
function seconds(t: string): number {
  const m = /^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$/.exec(t);
  if (!m) throw new Error(`not a Slurm duration: ${JSON.stringify(t)}`);
  return Number(m[1] ?? 0) * 86400 + Number(m[2] ?? 0) * 3600 + Number(m[3]) * 60 + Number(m[4]);
}

/** sacct's MaxRSS ("168348K", "1.50G", "0") in MiB. */
function mib(v: string): number {
  const m = /^(\d+(?:\.\d+)?)([KMGT]?)$/.exec(v);
  if (!m) throw new Error(`not a Slurm size: ${JSON.stringify(v)}`);
  return Number(m[1]) * { '': 1 / 1048576, K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024 }[m[2]]!;
}

describe('accounting: status after slurmctld forgot the job', () => {
  const env = clusterEnv();
  const jobs: string[] = [];
  beforeAll(() => requireCluster());
  afterAll(() => cancelJobs(jobs, env));

  it('status answers COMPLETED / FAILED with the exit code from sacct; sacct has TotalCPU and MaxRSS', async () => {
    const submit = async (tag: string, exit: number) => {
      const runDir = path.join(tmpDir(`acct-${tag}`), 'run');
      const r = await cli(
        ['submit', '-N', '1', '--run-dir', runDir, '--', PYTHON, '-c', WORK, String(exit)],
        {
          env,
        },
      );
      expect({ code: r.code, out: said(r) }).toMatchObject({ code: 0 });
      const id = jobIdOf(r);
      jobs.push(id);
      return id;
    };
    // Both at once: they share the wait for slurmctld's purge.
    const [ok, bad] = await Promise.all([submit('ok', 0), submit('bad', 3)]);

    // No `status` call before the purge: the run directory must not hold a final state yet, so
    // the answer below can only come from sacct (scontrol and squeue no longer know the jobs).
    await waitFor(
      `slurmctld to forget jobs ${ok} and ${bad} (MinJobAge + purge pass)`,
      () => scontrolState(ok, env) === undefined && scontrolState(bad, env) === undefined,
      180_000,
      2000,
    );
    for (const id of [ok, bad]) {
      expect(slurm(['squeue', '-h', '-j', id], env).stdout.trim()).toBe('');
      expect(slurm(['scontrol', 'show', 'job', id], env).stderr).toMatch(/Invalid job id/);
    }

    const fields = ['JobID', 'State', 'ExitCode', 'TotalCPU', 'MaxRSS', 'AllocCPUS', 'Elapsed'];
    const okRows = sacctRows(ok, fields, env);
    const okJob = okRows.find((r) => r.JobID === ok)!;
    expect(okJob).toMatchObject({ State: 'COMPLETED', ExitCode: '0:0' });
    expect(await statusJson(ok, env)).toMatchObject({
      job: { job_id: ok, state: { name: 'COMPLETED', exit_code: 0 } },
    });

    const badJob = sacctRows(bad, fields, env).find((r) => r.JobID === bad)!;
    expect(badJob.State).toBe('FAILED');
    const badExit = Number(badJob.ExitCode.split(':')[0]);
    expect(badExit).toBeGreaterThan(0);
    expect(await statusJson(bad, env)).toMatchObject({
      job: { job_id: bad, state: { name: 'FAILED', exit_code: badExit } },
    });

    // seff's figures: CPU time of the job vs. AllocCPUS x Elapsed; MaxRSS on the step lines.
    expect(seconds(okJob.TotalCPU)).toBeGreaterThan(1);
    expect(Number(okJob.AllocCPUS)).toBeGreaterThanOrEqual(1);
    expect(seconds(okJob.Elapsed)).toBeGreaterThanOrEqual(
      seconds(okJob.TotalCPU) / Number(okJob.AllocCPUS) - 1,
    );
    const maxRss = Math.max(...okRows.filter((r) => r.MaxRSS !== '').map((r) => mib(r.MaxRSS)));
    expect(maxRss).toBeGreaterThan(140);
    expect(maxRss).toBeLessThan(2000);
  });
});
