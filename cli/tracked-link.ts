// The MLflow link of a run directory: the parent run it was ingested into, if any.
import { listRemoteStates } from '../core';
import { tracking } from './lazy';
import { runUrl } from './mlflow-link';

/** The parent run's UI address, or undefined when the run directory was never sent to a server.
 *  The tracking plugin (and its HTTP client) loads only when tracking/ holds a server's state. */
export async function trackedRunUrl(runDir: string): Promise<string | undefined> {
  if (listRemoteStates(runDir).length === 0) return undefined;
  const runs = await tracking().findTrackedRuns(runDir);
  return runs ? runUrl(runs) : undefined;
}
