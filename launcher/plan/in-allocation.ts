// The in-allocation tracker (submit --track job), both ends of its protocol with the batch script
// (sbatch/lib/tracker.sh): what the script runs, recorded at submit, and the word the script leaves in
// the run directory once the ranks are done, logs/ranks.done (their step's exit status).
import * as path from 'path';
import { setTimeout as delay } from 'timers/promises';
import { firstFailedRank, packageRoot, readAllRankFacts, readBounded, runPaths } from '../../core';
import { TrackLaunchError, updateJobRecord } from '../../core';
import type { JobStateName } from '../../core';
import type { TrackerProgram } from './render-sbatch';

/** This process's Node.js and this installation's entry point (bin/track-launch.js). */
export const trackerProgram = (): TrackerProgram => ({
  node: process.execPath,
  main: path.join(packageRoot(), 'bin', 'track-launch.js'),
});

/** The ranks' step's exit status, once the batch script has written it. */
export function ranksExitStatus(runDir: string): number | undefined {
  const file = runPaths(runDir).ranksDone;
  const buf = readBounded(runDir, file, 64);
  if (buf === undefined) return undefined;
  const text = buf.toString('utf8');
  if (!/^\d{1,3}\n$/.test(text))
    throw new TrackLaunchError(
      'RUN_DIR',
      `${file} holds ${JSON.stringify(text.slice(0, 20))}, not an exit status`,
      {
        hint: "only the batch script writes it; after the job, `track-launch ingest <run-dir>` ends the runs with Slurm's state",
      },
    );
  return Number(text);
}

/** The in-allocation tracker's end of the job: once the batch script has written the ranks' exit
 *  status (checked every pollMs), records it in job.json as the state Slurm will give the job (the
 *  script exits with it: COMPLETED for 0, else FAILED), so that the runs' tags and job.json say it,
 *  and resolves with that state; undefined once `signal` aborts. */
export async function ranksDone(
  runDir: string,
  o: { pollMs: number; signal: AbortSignal },
): Promise<JobStateName | undefined> {
  for (;;) {
    if (o.signal.aborted) return undefined;
    const rc = ranksExitStatus(runDir);
    if (rc !== undefined) return recordRanksEnd(runDir, rc);
    // An abort ends the wait early (its rejection is dropped: the check above then returns).
    await delay(o.pollMs, undefined, { signal: o.signal }).catch(() => undefined);
  }
}

function recordRanksEnd(runDir: string, rc: number): JobStateName {
  const name: JobStateName = rc === 0 ? 'COMPLETED' : 'FAILED';
  const failed = firstFailedRank(readAllRankFacts(runDir), name);
  updateJobRecord(runDir, (r) => ({
    ...r,
    state: {
      ...(r.state?.nodes ? { nodes: r.state.nodes } : {}),
      ...(r.state?.started_at ? { started_at: r.state.started_at } : {}),
      name,
      exit_code: rc,
      ended_at: Date.now() / 1000,
      ...(failed ? { failed_rank: failed.rank, failed_host: failed.host } : {}),
    },
  }));
  return name;
}
