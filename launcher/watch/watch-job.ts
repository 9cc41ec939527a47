// The one job watcher: poll an executor's refresh until the job reaches a final state, so that
// `submit --follow`, `logs --follow` and `ingest --follow` all ride out a scheduler outage the same way.
import { setTimeout as delay } from 'timers/promises';
import { isFinal, readAllRankFacts, readJobRecord, runDirsOf, TrackLaunchError } from '../../core';
import type { JobRecord } from '../../core';

export interface WatchProgress {
  record: JobRecord;
  ranksStarted: number;
  elapsedS: number;
}

export interface WatchOptions {
  /** Time between polls while the scheduler answers. */
  pollMs: number;
  /** Called after every poll, the last time with the final record; awaited before the next poll. */
  onProgress?: (p: WatchProgress) => unknown;
  /** How long the scheduler may stay unreachable before watching gives up (default 10 minutes). */
  giveUpMs?: number;
  /** Longest wait between polls while the scheduler is unreachable (default 30 s, at least pollMs). */
  maxBackoffMs?: number;
  /** Told when the scheduler cannot be asked (default: a line on stderr, once per outage). */
  onWarning?: (message: string) => void;
  /** Stops watching: the promise then resolves with the last record seen, final or not. */
  signal?: AbortSignal;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Resolves early when `signal` aborts, so a stopped watch does not wait out its poll. */
const abortableSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  delay(ms, undefined, { signal }).catch(() => undefined);

/** Doubles the wait per failed poll in a row, up to `maxMs`: an outage is not hammered. */
export const backoffMs = (pollMs: number, failures: number, maxMs: number): number =>
  failures === 0 ? pollMs : Math.min(Math.max(pollMs, maxMs), pollMs * 2 ** failures);

export async function watchJob(
  runDir: string,
  refresh: (runDir: string) => Promise<JobRecord>,
  opts: WatchOptions,
): Promise<JobRecord> {
  const sleep = opts.sleep ?? abortableSleep;
  const warn = opts.onWarning ?? ((m: string) => process.stderr.write(`\ntrack-launch: warning: ${m}\n`));
  const start = Date.now();
  let failingSince: number | undefined;
  let failures = 0;
  for (;;) {
    let record: JobRecord;
    try {
      record = await refresh(runDir);
      failingSince = undefined;
      failures = 0;
    } catch (e) {
      // slurmctld restarting or briefly unreachable must not end the watch (the job runs on);
      // only a long outage, or anything but a failed scheduler command, does.
      if (!(e instanceof TrackLaunchError) || e.code !== 'COMMAND_FAILED') throw e;
      const now = Date.now();
      if (failingSince === undefined) {
        failingSince = now;
        warn(`cannot ask the scheduler for the job state (${e.message}); still trying`);
      } else if (now - failingSince > (opts.giveUpMs ?? 600_000)) throw e;
      failures++;
      record = readJobRecord(runDir);
    }
    await opts.onProgress?.({
      record,
      // An array job's ranks are in its tasks' directories: all of them, counted together.
      ranksStarted: runDirsOf(runDir).reduce((n, dir) => n + readAllRankFacts(dir).length, 0),
      elapsedS: (Date.now() - start) / 1000,
    });
    if (isFinal(record) || opts.signal?.aborted) return record;
    await sleep(backoffMs(opts.pollMs, failures, opts.maxBackoffMs ?? 30_000), opts.signal);
    if (opts.signal?.aborted) return record;
  }
}
