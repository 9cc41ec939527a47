// One ingest of one run dir: spool (always), then send to MLflow (when a tracking URI is set).
// cycle() is safe to repeat and to interrupt at any point; everything it learns is on disk.
import {
  assertRunDir,
  ensureTrackingDirs,
  isFinal,
  listRanks,
  readJobRecordIfAny,
  redact,
  TrackLaunchError,
  type JobRecord,
  type JobStateName,
} from '../../core';
import { parserFor } from '../parsers';
import { MlflowClient } from '../mlflow/client';
import { isRetryableStatus } from '../mlflow/retry';
import { trackingUri } from '../mlflow/config';
import { acquireLock } from './lock';
import { SpoolStage } from './spool-stage';
import type { Progress, Summary } from './progress';
import { undeliveredTotal } from './delivery';
import { DEFAULT_IN_FLIGHT, SendStage } from './send-stage';
import { settleAllValues } from './sender';
import { TrackerRecorder, type Placement } from './tracker';
import { who } from './who';

export interface IngestOptions {
  /** Tracking server; default MLFLOW_TRACKING_URI; none: offline (spool only). */
  trackingUri?: string;
  offline?: boolean;
  experiment?: string;
  /** auto | polynomial | luna | jsonl | regex:<pattern>; default job.json's, else auto. */
  format?: string;
  env?: NodeJS.ProcessEnv;
  /** How long .out.ts may lag behind .out before a line takes the fallback time (the rank's last line time). */
  graceMs?: number;
  /** Override of the HTTP retry count (tests). */
  maxRetries?: number;
  /** Requests in flight to MLflow; default TRACK_LAUNCH_REQUESTS_IN_FLIGHT, else DEFAULT_IN_FLIGHT. */
  requestsInFlight?: number;
  /** Where this ingester runs, for tracking/tracker.json (default manual). */
  placement?: Placement;
}

/** A number of requests in flight from `from` (a flag or setting), or an INVALID_SPEC error. */
export function requestsInFlight(value: string | number, from: string): number {
  const n = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (Number.isSafeInteger(n) && n > 0) return n;
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  const message = `${from}: ${shown} is not valid; use a whole number above 0, e.g. 4`;
  throw new TrackLaunchError('INVALID_SPEC', message, { details: { option: from, value } });
}

/** Errors worth waiting out: the server is away, busy or failing. Others need the user. */
export function isTransient(err: unknown): boolean {
  if (!(err instanceof TrackLaunchError) || err.code !== 'TRACKING') return false;
  const status = err.details.status as number | undefined;
  // The same rule as a single request's retries: 501, or a 503 saying artifact serving is off, is for good.
  return err.details.network === true || (status !== undefined && isRetryableStatus(status, err.message));
}

export class Ingester {
  private sending?: SendStage;
  private finalState?: JobStateName;
  private lastError?: string;
  /** Epoch ms when points last reached the server in this ingest. */
  private lastSentAt?: number;
  /** The error that stopped sending for good in this ingest (4xx, bad config), if any. */
  fatalError?: unknown;

  private constructor(
    readonly runDir: string,
    readonly opts: IngestOptions,
    private readonly spool: SpoolStage,
    private readonly uri: string | undefined,
    private readonly unlock: () => Promise<void>,
    private readonly inFlight: number,
    private job: JobRecord | undefined,
    private readonly tracker: TrackerRecorder,
  ) {}

  static async open(runDir: string, opts: IngestOptions = {}): Promise<Ingester> {
    assertRunDir(runDir);
    if (opts.format !== undefined) parserFor(opts.format); // a bad format is refused before anything is written
    const env = opts.env ?? process.env;
    const uri = opts.offline ? undefined : trackingUri(opts.trackingUri, env);
    // A URI that can never work is refused before anything is written, naming where it came from.
    if (uri !== undefined && !/^https?:\/\/[^/?#\s]+/i.test(uri)) {
      const from = opts.trackingUri !== undefined ? '--tracking-uri' : 'MLFLOW_TRACKING_URI';
      throw new TrackLaunchError(
        'INVALID_SPEC',
        `${from}: ${JSON.stringify(uri)} is not valid; use the http(s) URL of an MLflow tracking server, e.g. http://mlflow.example:5000`,
        { details: { option: from, value: uri } },
      );
    }
    const setting = env.TRACK_LAUNCH_REQUESTS_IN_FLIGHT;
    const inFlight =
      opts.requestsInFlight !== undefined
        ? requestsInFlight(opts.requestsInFlight, 'requestsInFlight')
        : setting
          ? requestsInFlight(setting, 'TRACK_LAUNCH_REQUESTS_IN_FLIGHT')
          : DEFAULT_IN_FLIGHT;
    ensureTrackingDirs(runDir);
    const unlock = acquireLock(runDir);
    try {
      const tracker = await TrackerRecorder.start(runDir, opts.placement ?? 'manual');
      const job = readJobRecordIfAny(runDir);
      const spool = await SpoolStage.open(runDir, job, opts.format);
      return new Ingester(runDir, opts, spool, uri, unlock, inFlight, job, tracker);
    } catch (err) {
      await unlock();
      throw err;
    }
  }

  /** The launcher learned the final state from Slurm before job.json says so. */
  setFinalState(state: JobStateName): void {
    this.finalState = state;
  }

  get final(): boolean {
    return this.finalState !== undefined || isFinal(this.job);
  }

  /** Spool what is new, then send what is unsent; returns the progress after it. `settle` (a
   *  one-shot ingest): give .out.ts up to the grace time to catch up, then use the fallback time. */
  async cycle(settle = false): Promise<Progress> {
    this.job = readJobRecordIfAny(this.runDir) ?? this.job;
    const final = this.final;
    const grace = this.opts.graceMs ?? 5000;
    // The experiment, the parent run and the rank runs go out while the logs are read: none of
    // them needs the points. Its error is taken up below, where the send's would be.
    const prepared =
      this.uri && this.fatalError === undefined
        ? this.prepare().then(
            () => undefined,
            (err: unknown) => ({ err }),
          )
        : undefined;
    try {
      try {
        let { held } = await this.spool.step(this.job, final, Date.now(), grace);
        for (const t0 = Date.now(); settle && held > 0;) {
          const waited = Date.now() - t0 >= grace;
          if (!waited) await new Promise((r) => setTimeout(r, 200));
          ({ held } = await this.spool.step(this.job, final, Date.now(), grace, waited));
        }
      } catch (err) {
        await prepared; // nothing of this cycle may write to the run dir once it has failed
        throw err;
      }
      if (prepared) {
        try {
          const failed = await prepared;
          if (failed) throw failed.err;
          const before = this.sending?.pointsSent ?? 0;
          await this.send(final).finally(() => {
            if ((this.sending?.pointsSent ?? 0) > before) this.lastSentAt = Date.now();
          });
          this.lastError = undefined;
        } catch (err) {
          if (!isTransient(err)) this.fatalError = err;
          this.lastError = err instanceof Error ? err.message : String(err);
          // A refusal that retrying cannot fix (401, 403, a bad URI): say what to change.
          const hint = err instanceof TrackLaunchError ? err.hint : undefined;
          if (this.fatalError !== undefined && hint) this.lastError += ` (${hint})`;
        }
      }
    } finally {
      await this.sending?.runs.settle(); // none of this cycle's creates still asked after it
    }
    const p = this.progress();
    await this.tracker.update({
      pending: p.pending,
      lagMs: p.lagMs,
      ...(this.sending ? { undelivered: this.sending.undelivered } : {}),
      ...(this.lastSentAt === undefined ? {} : { lastSentAt: this.lastSentAt }),
    });
    return p;
  }

  /** The client and, on the server, the experiment, the parent run and (started, not waited for)
   *  the runs of the ranks whose logs exist. */
  private async prepare(): Promise<SendStage> {
    const env = this.opts.env ?? process.env;
    if (!this.sending) {
      const client = await MlflowClient.connect(
        this.uri as string,
        env,
        this.opts.maxRetries === undefined ? {} : { maxRetries: this.opts.maxRetries },
      );
      const user = await who(this.job, this.runDir);
      this.sending = await SendStage.open(client, this.runDir, user, this.inFlight);
    }
    const ranks = listRanks(this.runDir).map(String);
    await this.sending.runs.ensure(this.job, this.spool, this.opts.experiment, env, ranks);
    return this.sending;
  }

  private async send(final: boolean): Promise<void> {
    const sending = await this.prepare();
    await sending.runs.ensure(this.job, this.spool, this.opts.experiment, this.opts.env ?? process.env);
    // tags, params and job.sbatch go out beside the points: neither waits for the other
    await settleAllValues([sending.syncTags(this.job, this.spool), sending.sendAll(this.spool)]);
    if (final && this.pending() === 0) await sending.finish(this.job, this.finalState);
  }

  /** Spooled points neither delivered nor skipped for good. */
  private pending(): number {
    if (!this.sending) return this.spool.pointsSpooled;
    return this.spool.pointsSpooled - this.sending.pointsSent - this.sending.undelivered.points;
  }

  get complete(): boolean {
    if (!this.uri || this.fatalError !== undefined || !this.sending) return false;
    return this.pending() === 0 && (!this.final || this.sending.state.finished !== undefined);
  }

  progress(): Progress {
    const ranks = Object.values(this.spool.state.ranks);
    const firsts = this.sending ? [...this.sending.firstUnsent.values()] : [];
    const pending = this.pending();
    const p: Progress = {
      final: this.final,
      ranksSeen: ranks.length,
      pointsSpooled: this.spool.pointsSpooled,
      pending: this.uri ? pending : 0,
      lagMs: this.uri && pending > 0 && firsts.length ? Math.max(0, Date.now() - Math.min(...firsts)) : 0,
      skipped: ranks.reduce((n, r) => n + r.skipped, 0),
      online: !!this.uri && this.lastError === undefined,
    };
    const state = this.finalState ?? this.job?.state?.name;
    if (state) p.state = state;
    if (this.job?.spec?.world_size) p.worldSize = this.job.spec.world_size;
    if (this.uri) p.pointsSent = this.sending?.pointsSent ?? 0;
    if (this.lastError) p.lastError = this.lastError;
    if (this.fatalError !== undefined) p.stopped = true;
    const lost = this.sending?.undelivered;
    if (lost && undeliveredTotal(lost)) {
      const { points, params, tags, files } = lost;
      p.notDelivered = { points, params, tags, files };
    }
    return p;
  }

  summary(): Summary {
    const s: Summary = {
      ...this.progress(),
      runDir: this.runDir,
      rankRunIds: { ...(this.sending?.state.rank_run_ids ?? {}) },
      complete: this.complete,
      warnings: [...this.tracker.warnings, ...this.spool.warnings, ...(this.sending?.warnings ?? [])],
    };
    if (this.uri) s.trackingUri = redact(this.uri); // printed and written as JSON: no password from the URI
    if (this.sending?.state.experiment_id) s.experimentId = this.sending.state.experiment_id;
    if (this.sending?.state.parent_run_id) s.parentRunId = this.sending.state.parent_run_id;
    if (this.sending?.state.finished) s.status = this.sending.state.finished;
    if (this.sending && undeliveredTotal(this.sending.undelivered)) s.undelivered = this.sending.undelivered;
    if (this.sending?.renamed.size) s.renamed = [...this.sending.renamed].map(([from, to]) => ({ from, to }));
    return s;
  }

  async close(): Promise<Summary> {
    await this.unlock();
    return this.summary();
  }
}
