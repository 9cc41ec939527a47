// The launcher's use case: submit a plan with its executor, cancel it when asked (as soon as it
// has a job id), follow it to its final state. Printing and Ctrl-C belong to the caller.
import { setTimeout as delay } from 'timers/promises';
import { isFinal, JobRecord } from '../../core';
import type { SubmitPlan } from '../plan/plan';
import { executorFor, type BeforeSubmit, type Executor, type SubmittedJob } from '../executors/executor';
import { watchJob, type WatchProgress } from '../watch/watch-job';

export type RunJobEvent =
  /** Cancelling was asked for before the job had an id: it is cancelled once it has one. */
  | { kind: 'cancel-deferred' }
  | { kind: 'cancelling'; jobId: string }
  /** The cancel was refused (the job already ended, or the scheduler kept refusing). */
  | { kind: 'cancel-failed'; jobId: string; error: Error };

export interface RunJobOptions {
  /** Watch the job to its final state (otherwise return once it is submitted). */
  follow?: boolean;
  /** Time between polls while following (ms, default 2000). */
  pollMs?: number;
  /** Aborting cancels the job (as soon as it has an id) and keeps following to its final state. */
  cancel?: AbortSignal;
  /** Called once the run directory is prepared, before the job is submitted; its failure is the
   *  submit's (nothing is submitted, the run directory is removed). */
  beforeSubmit?: BeforeSubmit;
  /** Told once the job has an id, before following starts. */
  onSubmitted?: (job: SubmittedJob) => void;
  onProgress?: (p: WatchProgress) => void;
  onEvent?: (e: RunJobEvent) => void;
  /** Default: the plan's executor. */
  executor?: Executor;
}

export interface RunJobResult extends SubmittedJob {
  /** The final record, when followed. */
  record?: JobRecord;
}

/** Cancel a job that may not be cancellable yet (just submitted, the scheduler busy), asking again
 *  while it has not ended: resolves once a cancel was accepted, rejects with the last refusal when the
 *  job has already ended (nothing to cancel) or after `attempts` tries. */
export async function cancelWithRetries(
  executor: Pick<Executor, 'cancel' | 'refresh'>,
  runDir: string,
  opts: { attempts?: number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<void> {
  const sleep = opts.sleep ?? delay;
  for (let attempt = 1; ; attempt++) {
    try {
      return await executor.cancel(runDir);
    } catch (e) {
      // The state only decides whether to try again; not knowing it means trying again.
      const rec = await executor.refresh(runDir).catch(() => undefined);
      if (isFinal(rec) || attempt >= (opts.attempts ?? 5)) throw e;
      await sleep(1000);
    }
  }
}

export async function runJob(plan: SubmitPlan, opts: RunJobOptions = {}): Promise<RunJobResult> {
  const executor = opts.executor ?? executorFor(plan.executor);
  const emit = opts.onEvent ?? (() => undefined);
  let job: SubmittedJob | undefined;
  let cancelling = false;
  const startCancel = () => {
    if (cancelling || !job) return;
    cancelling = true;
    const { jobId, runDir } = job;
    emit({ kind: 'cancelling', jobId });
    cancelWithRetries(executor, runDir).catch((error: Error) =>
      emit({ kind: 'cancel-failed', jobId, error }),
    );
  };
  const onAbort = () => (job ? startCancel() : emit({ kind: 'cancel-deferred' }));
  opts.cancel?.addEventListener('abort', onAbort, { once: true });
  try {
    job = await executor.submit(plan, new Date(), opts.beforeSubmit);
    opts.onSubmitted?.(job);
    if (!opts.follow) return job;
    if (opts.cancel?.aborted) startCancel();
    const record = await watchJob(job.runDir, executor.refresh, {
      pollMs: opts.pollMs ?? 2000,
      onProgress: opts.onProgress,
    });
    return { ...job, record };
  } finally {
    opts.cancel?.removeEventListener('abort', onAbort);
  }
}
