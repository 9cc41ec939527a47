// Cancel a job that may not be cancellable yet (just submitted, the scheduler busy): ask again
// while it has not ended.
import { setTimeout as delay } from 'timers/promises';
import { isFinal } from '../../core';
import type { Executor } from '../executors/executor';

/** Resolves once a cancel was accepted; rejects with the last refusal when the job has already
 *  ended (nothing to cancel) or after `attempts` tries. */
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
