// What `submit` calls before it writes anything: read the facts, check the request, and say where
// it fits. Throws INVALID_SPEC (exit 2) when the request cannot run, COMMAND_FAILED when Slurm
// cannot be asked (the hint names --no-check).
import { TrackLaunchError } from '../../core';
import { ProcessRunner, runProcess } from '../slurm/run-process';
import { assertRequestFits, ClusterRequest, describeFit, RequestCheck } from './check-request';
import { ClusterFacts } from './facts';
import { fetchClusterFacts } from './fetch';

export interface Preflight {
  facts: ClusterFacts;
  check: RequestCheck;
  /** For the plan and --dry-run: "partition debug (default): 3 of 3 nodes fit (tlnode[1-3]), time limit unlimited". */
  fit: string;
  /** Printed, not refused: drained/down nodes, a DOWN partition, uneven GPUs per task. */
  warnings: string[];
}

export async function preflightCheck(
  req: ClusterRequest,
  run: ProcessRunner = runProcess,
): Promise<Preflight> {
  const facts = await fetchClusterFacts(run);
  if (req.reservation) await assertReservations(req.reservation, run);
  const check = assertRequestFits(req, facts);
  return { facts, check, fit: describeFit(check, facts), warnings: check.warnings };
}

/** Each --reservation name is one `scontrol show reservation` knows. */
async function assertReservations(names: string, run: ProcessRunner): Promise<void> {
  for (const name of names.split(',')) {
    const r = await run(['scontrol', '--oneliner', 'show', 'reservation', name], { timeoutMs: 30_000 });
    if (
      r.code === 0 &&
      new RegExp(`ReservationName=${name.replace(/[.+]/g, '\\$&')}\\s`).test(`${r.stdout} `)
    )
      continue;
    throw new TrackLaunchError(
      'INVALID_SPEC',
      `--reservation: ${JSON.stringify(name)} is not a reservation of this cluster${r.stderr.trim() ? ` (scontrol: ${r.stderr.trim()})` : ''}`,
      {
        hint: '`scontrol show reservation` lists them; `--no-check` skips this check.',
        details: { option: 'reservation', value: name },
      },
    );
  }
}
