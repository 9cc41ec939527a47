// The MLflow UI's address of a run or an experiment, as the commands and the report print it.
import { listRemoteStates, redact } from '../core';
import { tracking } from './lazy';

// MLflow 3's UI opens every experiment in a global "GenAI" or "Model training" mode (remembered in the
// browser, GenAI by default), whatever the experiment's kind tag says; the links choose training.
const TRAINING_VIEW = '?workflowType=machine_learning';

export interface RunRef {
  trackingUri: string;
  experimentId?: string;
  parentRunId?: string;
}

/** The run's page in MLflow's training view (`<uri>/#/experiments/<exp>/runs/<run>`, or `<uri>/#/runs/<run>`
 *  without an experiment id); credentials in the URI are dropped: the browser asks for them. */
export function runUrl(ref: RunRef): string | undefined {
  if (!ref.parentRunId) return undefined;
  const base = uiBase(ref.trackingUri);
  if (base === undefined) return undefined;
  const run = encodeURIComponent(ref.parentRunId);
  return ref.experimentId
    ? `${base}/#/experiments/${encodeURIComponent(ref.experimentId)}/runs/${run}${TRAINING_VIEW}`
    : `${base}/#/runs/${run}${TRAINING_VIEW}`;
}

/** The experiment's runs table in the training view: the job's parent runs, each over its rank runs. */
export function experimentUrl(trackingUri: string, experimentId: string): string | undefined {
  const base = uiBase(trackingUri);
  return base === undefined
    ? undefined
    : `${base}/#/experiments/${encodeURIComponent(experimentId)}${TRAINING_VIEW}`;
}

/** The server's address without credentials, query or fragment; undefined for a URI with no web UI. */
function uiBase(trackingUri: string): string | undefined {
  let base: string;
  try {
    const u = new URL(trackingUri);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined; // no UI to link to
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    base = u.toString();
  } catch {
    base = redact(trackingUri); // not a URL (cannot happen for a URI ingestion used): keep it, redacted
  }
  return base.replace(/\/+$/, '');
}

/** The parent run's page of a tracked run directory, or undefined when it was never sent anywhere. */
export const runUrlOf = (ref: RunRef | undefined): string | undefined => (ref ? runUrl(ref) : undefined);

/** runUrlOf for a run directory; the tracking plugin loads only when tracking/ holds a server's state. */
export async function trackedRunUrl(runDir: string): Promise<string | undefined> {
  if (listRemoteStates(runDir).length === 0) return undefined;
  return runUrlOf(await tracking().findTrackedRuns(runDir));
}
