// Doctor's login-node checks of Slurm: the client commands are there and slurmctld answers them,
// accounting (sacct) works, and partitions are visible through the cluster facts.
import * as os from 'os';
import { fetchClusterFacts } from '../cluster/fetch';
import type { ClusterFacts } from '../cluster/facts';
import { onPath } from '../executors/executor';
import { TrackLaunchError } from '../../core';
import { tail, type ProcessResult, type ProcessRunner, runProcess } from '../slurm/run-process';
import { type DoctorCheck, fail, failFrom, ok, warn } from './check';

const TIMEOUT_MS = 20_000;
const CTLD_HINT =
  'is slurmctld reachable from here (`scontrol ping`)? Run track-launch on a login node of the cluster';

const firstLine = (s: string) => s.trim().split('\n')[0] ?? '';

/** `name: why`, the stderr tail of a command that answered non-zero. */
const said = (stdout: string, stderr: string) => tail(stderr, 2) || tail(stdout, 2) || 'no output';

export async function slurmChecks(
  run: ProcessRunner = runProcess,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ checks: DoctorCheck[]; facts?: ClusterFacts }> {
  if (!onPath('sbatch', env))
    return {
      checks: [
        warn(
          'slurm',
          'sbatch is not on PATH: not a Slurm login node; jobs run on this machine (--executor local). Load the Slurm client (e.g. `module load slurm`) on a login node',
        ),
      ],
    };
  const checks: DoctorCheck[] = [];
  const ask = async (argv: string[]): Promise<ProcessResult | TrackLaunchError> => {
    try {
      return await run(argv, { timeoutMs: TIMEOUT_MS });
    } catch (err) {
      if (err instanceof TrackLaunchError) return err; // not installed: said on its line, the rest still run
      throw err;
    }
  };

  const sb = await ask(['sbatch', '--version']);
  if (sb instanceof TrackLaunchError) checks.push(failFrom('slurm-sbatch', sb));
  else if (sb.code !== 0)
    checks.push(fail('slurm-sbatch', `sbatch --version: ${said(sb.stdout, sb.stderr)}`, 'COMMAND_FAILED'));
  else checks.push(ok('slurm-sbatch', firstLine(sb.stdout)));

  const user = os.userInfo().username;
  const sq = await ask(['squeue', '-h', '-o', '%i', '-u', user]);
  if (sq instanceof TrackLaunchError) checks.push(failFrom('slurm-squeue', sq));
  else if (sq.code !== 0)
    checks.push(
      fail('slurm-squeue', `squeue: ${said(sq.stdout, sq.stderr)}; ${CTLD_HINT}`, 'COMMAND_FAILED'),
    );
  else {
    const n = sq.stdout.split('\n').filter((l) => l.trim()).length;
    checks.push(ok('slurm-squeue', `slurmctld answers (${n} job(s) of ${user} in the queue)`));
  }

  const sa = await ask(['sacct', '-n', '-X', '-P', '-o', 'JobID', '-S', 'now-3600']);
  const noSacct = 'status still works through scontrol and squeue, but forgets finished jobs after MinJobAge';
  if (sa instanceof TrackLaunchError) checks.push(warn('slurm-sacct', `sacct is not on PATH: ${noSacct}`));
  else if (sa.code !== 0)
    checks.push(
      warn('slurm-sacct', `sacct: ${said(sa.stdout, sa.stderr)}: accounting is not available; ${noSacct}`),
    );
  else checks.push(ok('slurm-sacct', 'accounting answers'));

  let facts: ClusterFacts | undefined;
  try {
    facts = await fetchClusterFacts(run, { timeoutMs: TIMEOUT_MS });
    checks.push(partitionsCheck(facts));
  } catch (err) {
    checks.push(failFrom('slurm-partitions', err));
  }
  return { checks, facts };
}

/** OK when a partition is up; each listed with its node count, the default marked with `*`. */
export function partitionsCheck(facts: ClusterFacts): DoctorCheck {
  const shown = facts.partitions
    .map((p) => `${p.name}${p.isDefault ? '*' : ''} (${p.state.toLowerCase()}, ${p.nodes.length} nodes)`)
    .join(', ');
  const up = facts.partitions.filter((p) => p.state.toUpperCase() === 'UP');
  if (up.length === 0)
    return fail(
      'slurm-partitions',
      `no partition is up: ${shown}; ask the cluster's admins`,
      'COMMAND_FAILED',
    );
  return ok('slurm-partitions', shown);
}
