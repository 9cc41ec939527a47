// Ingesting while the job runs (submit --follow, ingest --follow): a poll loop around Ingester.
// The launcher polls Slurm and calls jobEnded(state); the loop then drains and finishes the runs.
import type { JobStateName } from '../../core';
import { Ingester, type IngestOptions } from './ingester';
import type { Progress, Summary } from './progress';

export interface LiveOptions extends IngestOptions {
  /** Time between polls of the logs, ms (default 1000). */
  pollMs?: number;
  /** Called after every poll. */
  onProgress?: (p: Progress) => void;
  /** After the job ended, how long to keep trying an unreachable server before giving up (ms, default 120 s). */
  drainTimeoutMs?: number;
}

export interface LiveIngest {
  /** The latest progress (ranks seen, points sent, lag). */
  progress(): Progress;
  /** The job reached a final state: ingest the rest, finish the runs with it, then resolve `done`. */
  jobEnded(state: JobStateName): void;
  /** Stop now (the spool and cursors on disk stay consistent); with a state, like jobEnded + wait. */
  stop(final?: JobStateName): Promise<Summary>;
  /** Resolves when ingestion ended: after the job's end and the drain, or after stop(). */
  readonly done: Promise<Summary>;
}

export function startLiveIngest(runDir: string, opts: LiveOptions = {}): LiveIngest {
  const pollMs = opts.pollMs ?? 1000;
  let ing: Ingester | undefined;
  let last: Progress = {
    final: false,
    ranksSeen: 0,
    pointsSpooled: 0,
    pending: 0,
    lagMs: 0,
    skipped: 0,
    online: false,
  };
  let ended: JobStateName | undefined;
  let stopping = false;
  let wake: (() => void) | undefined;
  // polls every pollMs from the start of the last one, so that a cycle's own length (many ranks, a
  // slow server) does not add to the lag; a quarter of it at least, so that long cycles still rest
  const nap = (since: number) =>
    new Promise<void>((r) => {
      const t = setTimeout(r, Math.max(pollMs / 4, since + pollMs - Date.now()));
      wake = () => {
        clearTimeout(t);
        r();
      };
    });

  const loop = async (): Promise<Summary> => {
    // few retries per request: the loop itself retries every poll, and keeps spooling meanwhile
    ing = await Ingester.open(runDir, { ...opts, maxRetries: opts.maxRetries ?? 2 });
    let finalSince: number | undefined;
    try {
      for (;;) {
        const started = Date.now();
        if (ended) ing.setFinalState(ended);
        last = await ing.cycle();
        opts.onProgress?.(last);
        if (stopping && !ended) break;
        if (last.final) {
          finalSince ??= Date.now();
          const gaveUp = Date.now() - finalSince > (opts.drainTimeoutMs ?? 120_000);
          if (
            ing.complete ||
            last.pointsSent === undefined /* offline */ ||
            ing.fatalError !== undefined ||
            gaveUp
          )
            break;
        }
        await nap(started);
      }
    } finally {
      await ing.close();
    }
    return ing.summary();
  };
  const done = loop();
  done.catch(() => undefined); // the caller sees the rejection through done/stop(); this only prevents an unhandled one

  return {
    progress: () => last,
    jobEnded(state) {
      ended = state;
      wake?.();
    },
    async stop(final) {
      if (final) ended = final;
      stopping = true;
      wake?.();
      return done;
    },
    done,
  };
}
