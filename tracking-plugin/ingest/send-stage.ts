// The send stage: the job's runs (server-runs.ts), tags kept current, the spools sent from
// persisted cursors, and the runs finished when the job ended.
import { limiter, type Gate } from './limiter';
import { GroupedSaver } from './saver';
import {
  readRankFacts,
  runPaths,
  trackingPaths,
  writeTrackingStateAsync,
  type JobRecord,
  type JobStateName,
} from '../../core';
import type { MlflowClient } from '../mlflow/client';
import { rankStatusFor, runStatusFor } from '../status';
import type { SpoolStage } from './spool-stage';
import { pump } from './pump';
import {
  firstRefusal,
  recordUndelivered,
  undeliveredOf,
  type DeliveryState,
  type Undelivered,
} from './delivery';
import { countLost, Sender, settleAllValues } from './sender';
import { loadServerState, type ServerState } from './state';
import { childTags, digest, paramClashes, parentParams, parentTags, type Who } from './tags';
import { ServerRuns } from './server-runs';
import { spoolStreams } from './streams';
import { Uploader } from './uploads';

/** Cursor saves while answers keep coming: at most one write per this many ms (saver.ts). Each
 *  write is the whole state with two fsyncs: a tracker beside a running job answers a request per
 *  rank per cycle, and a shorter gap makes most of its CPU time saves. */
const SAVE_GAP_MS = 1000;

/** Requests in flight to the server unless set otherwise (IngestOptions.requestsInFlight): a server
 *  with workers answers them side by side; one answering one at a time loses little (BENCHMARKS.md). */
export const DEFAULT_IN_FLIGHT = 4;

/** The send state: cursors and run ids (state.ts) and what was not delivered (delivery.ts). */
export type SendState = ServerState & DeliveryState;

export class SendStage {
  readonly warnings: string[] = [];
  /** Timestamp of the first unsent point per stream, for the lag in progress lines. */
  readonly firstUnsent = new Map<string, number>();
  private readonly sender: Sender;
  private readonly uploads: Uploader;
  private readonly saver: GroupedSaver;
  /** The experiment, the parent run and the rank runs (server-runs.ts). */
  readonly runs: ServerRuns;
  /** Requests waiting for the limit or in flight. */
  private requests = 0;
  /** One limit for every request of this ingest. */
  private readonly inFlight: Gate;

  private constructor(
    readonly client: MlflowClient,
    readonly runDir: string,
    readonly file: string,
    readonly state: SendState,
    private readonly who: Who,
    private readonly limit: number,
  ) {
    const gate = limiter(limit);
    this.inFlight = async (task) => {
      this.requests++;
      try {
        return await gate(task);
      } finally {
        this.requests--;
      }
    };
    this.runs = new ServerRuns(client, runDir, state, who, () => this.saver.now(), this.inFlight);
    this.sender = new Sender(client, state, (m) => this.warnings.push(m));
    this.uploads = new Uploader(client, runDir, state, () => this.saver.now(), this.warnings);
    // its fsyncs and rename wait off the event loop: answers keep being read and requests sent meanwhile
    this.saver = new GroupedSaver(
      () => writeTrackingStateAsync(this.runDir, this.file, { ...this.state, updated_at: Date.now() }),
      SAVE_GAP_MS,
    );
  }

  static async open(
    client: MlflowClient,
    runDir: string,
    who: Who,
    limit = DEFAULT_IN_FLIGHT,
  ): Promise<SendStage> {
    const file = trackingPaths(runDir).sendState(client.uri);
    return new SendStage(client, runDir, file, loadServerState(runDir, file, client.uri), who, limit);
  }

  get pointsSent(): number {
    return Object.values(this.state.sent_points).reduce((a, b) => a + b, 0);
  }

  /** What never reached MLflow (skipped names, refused entries, files), with why. */
  get undelivered(): Undelivered {
    return undeliveredOf(this.state);
  }

  /** Names sent under another name in this ingest: original -> sent. */
  get renamed(): ReadonlyMap<string, string> {
    return this.sender.renamed;
  }

  /** Tags and params follow job.json and the rank facts, which appear and change while the job runs. */
  async syncTags(job: JobRecord | undefined, spool: SpoolStage): Promise<void> {
    const s = this.state;
    if (!s.parent_run_id) return;
    const facts0 = readRankFacts(this.runDir, 0);
    const want = {
      tags: parentTags(job, this.runDir, spool.state.job_key, facts0, this.who),
      params: parentParams(job),
    };
    const d = digest([...want.tags, ...want.params.map((p) => ({ key: `param:${p.key}`, value: p.value }))]);
    if (s.tagged.parent !== d) {
      this.refuseClashes(s.parent_run_id, job);
      countLost(this.state, await this.sender.send(s.parent_run_id, want));
      s.tagged.parent = d;
      await this.saver.now();
    }
    const script = runPaths(this.runDir).script;
    await this.uploads.runDirFile(s.parent_run_id, 'job.sbatch', script, 'text/x-shellscript');
    for (const [r, id] of Object.entries(s.rank_run_ids)) {
      const facts = readRankFacts(this.runDir, Number(r));
      const tags = childTags(Number(r), spool.state.job_key, s.parent_run_id, facts, this.who);
      const dr = digest(tags);
      if (s.tagged[`rank-${r}`] === dr) continue;
      countLost(this.state, await this.sender.send(id, { tags }));
      s.tagged[`rank-${r}`] = dr;
      await this.saver.now();
    }
  }

  /** Send every committed spool record not yet acknowledged, creating the rank runs still missing
   *  on the way; streams take turns for the request limit (pump.ts). */
  async sendAll(spool: SpoolStage): Promise<void> {
    const s = this.state;
    const parent = () => Promise.resolve(s.parent_run_id);
    const streams = spoolStreams(spool, parent, (r) => () => this.runs.rank(r, spool));
    await pump(streams, {
      runDir: this.runDir,
      tickets: 2 * this.limit, // the next requests ready while the limit's are in flight
      cursor: (id) => s.sent[id] ?? 0,
      send: (runId, points) => this.sender.send(runId, { metrics: points }, this.inFlight),
      // the cursor, the points delivered and those left out move together (one save); grouped
      // while other answers are on their way, at once after the last
      commit: (id, end, sent) => {
        s.sent[id] = end;
        for (const x of sent) {
          s.sent_points[id] = (s.sent_points[id] ?? 0) + x.delivered;
          countLost(s, x);
        }
        return this.requests > 0 ? this.saver.grouped() : this.saver.now();
      },
      unsent: (id, ts) => (ts === undefined ? this.firstUnsent.delete(id) : this.firstUnsent.set(id, ts)),
    });
    if (this.runs.started) await this.saver.now(); // runs without points to send
  }

  /** The job ended and everything is sent: logs as artifacts, then the final status and end time.
   *  A file that cannot be stored is counted as not delivered: the runs end regardless. */
  async finish(job: JobRecord | undefined, finalState: JobStateName | undefined): Promise<void> {
    const s = this.state;
    if (s.finished || !s.parent_run_id) return;
    const paths = runPaths(this.runDir);
    const parent = s.parent_run_id;
    await this.uploads.runDirFile(parent, 'job.sbatch', paths.script, 'text/x-shellscript', true);
    await this.uploads.runDirFile(parent, 'job.json', paths.jobJson, 'application/json', true);
    await this.uploads.outputs(s.parent_run_id, job);
    const status = runStatusFor(finalState ?? job?.state?.name, true);
    const endMs = Math.round(1000 * (job?.state?.ended_at ?? Date.now() / 1000));
    // Ranks a few at a time (their saves coalesce in the saver).
    const endRank = async (rank: number, id: string) => {
      await this.uploads.runDirFile(id, `logs/rank-${rank}.out`, paths.rankOut(rank), 'text/plain', true);
      await this.uploads.runDirFile(id, `logs/rank-${rank}.err`, paths.rankErr(rank), 'text/plain', true);
      const facts = readRankFacts(this.runDir, rank);
      const end = facts?.ended_at ? Math.round(facts.ended_at * 1000) : endMs;
      await this.client.updateRun(id, { status: rankStatusFor(status, facts?.exit_code), endTime: end });
    };
    const ranks = Object.entries(s.rank_run_ids);
    await settleAllValues(ranks.map(([r, id]) => this.inFlight(() => endRank(Number(r), id))));
    await this.client.updateRun(s.parent_run_id, { status, endTime: endMs });
    s.finished = status;
    await this.saver.now();
  }

  /** A --param with the name of a built-in parameter (job.*): the built-in one is sent, the user's
   *  is counted as not delivered and said once. */
  private refuseClashes(runId: string, job: JobRecord | undefined): void {
    for (const key of paramClashes(job)) {
      if (!firstRefusal(this.state, runId, 'params', key)) continue;
      const reason = `--param ${key} has the name of a built-in parameter; the built-in value is logged`;
      this.warnings.push(`${reason} (choose another name for yours)`);
      recordUndelivered(this.state, 'params', 1, reason);
    }
  }
}
