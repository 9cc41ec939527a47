// The in-allocation tracker (submit --track job), both ends of its protocol with the batch script
// (sbatch/lib/tracker.sh): what the script runs, recorded at submit, and the word the script leaves in
// the run directory once the ranks are done, logs/ranks.done (their step's exit status).
import * as path from 'path';
import { setTimeout as delay } from 'timers/promises';
import { packageRoot, readBounded, runPaths, TrackLaunchError } from '../../core';
import type { JobStateName } from '../../core';
import type { TrackerProgram } from './render-sbatch';

/** This process's Node.js and this installation's entry point (bin/track-launch.js). */
export const trackerProgram = (): TrackerProgram => ({
  node: process.execPath,
  main: path.join(packageRoot(), 'bin', 'track-launch.js'),
});

/** The ranks' outcome, once the batch script has written it: COMPLETED for exit status 0, else FAILED. */
export function ranksOutcome(runDir: string): JobStateName | undefined {
  const file = runPaths(runDir).ranksDone;
  const buf = readBounded(runDir, file, 64);
  if (buf === undefined) return undefined;
  const text = buf.toString('utf8');
  if (!/^\d{1,3}\n$/.test(text))
    throw new TrackLaunchError(
      'RUN_DIR',
      `${file} holds ${JSON.stringify(text.slice(0, 20))}, not an exit status`,
      {
        hint: 'only the batch script writes it; stop the tracker and run `track-launch ingest <run-dir>` after the job',
      },
    );
  return Number(text) === 0 ? 'COMPLETED' : 'FAILED';
}

/** The in-allocation tracker's end of the job: resolves with the ranks' outcome once the batch script
 *  has written it (checked every pollMs), or undefined once `signal` aborts. */
export async function ranksDone(
  runDir: string,
  o: { pollMs: number; signal: AbortSignal },
): Promise<JobStateName | undefined> {
  for (;;) {
    if (o.signal.aborted) return undefined;
    const outcome = ranksOutcome(runDir);
    if (outcome) return outcome;
    // An abort ends the wait early (its rejection is dropped: the check above then returns).
    await delay(o.pollMs, undefined, { signal: o.signal }).catch(() => undefined);
  }
}
