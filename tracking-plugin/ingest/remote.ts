// Stage 2, network: find or create the job's runs (a search by job-key tag first, so a crash
// between create and persist cannot make a second run; the runs' creates start while stage 1
// still reads the logs, each rank run's points sent once it exists, pump.ts), keep tags current,
// send the spools from persisted cursors, and finish the runs when the job ended.
import { limiter, type Gate } from './limiter';
import { GroupedSaver } from './saver';
import { readRankFacts, runPaths, type JobRecord, type JobStateName } from '../../core';
import type { MlflowClient } from '../mlflow/client';
import type { Run } from '../mlflow/types';
import { rankStatusFor, runStatusFor } from '../status';
import type { LocalSpool } from './run-spool';
import { pump } from './pump';
import {
  firstRefusal,
  recordUndelivered,
  undeliveredOf,
  type DeliveryState,
  type Undelivered,
} from './delivery';
import { countLost, Sender, settleAllValues } from './sender';
import { loadRemote, saveStateAsync, trackingFiles, type RemoteState } from './state';
import {
  childTags,
  digest,
  experimentName,
  jobFilter,
  paramClashes,
  parentName,
  parentParams,
  parentTags,
  TAG_RANK,
  TAG_ROLE,
  type Who,
} from './tags';
import { spoolStreams } from './streams';
import { Uploader } from './uploads';

/** Requests in flight at once, all of one sync's together. */
const LIMIT = 4;
/** Cursor saves while answers keep coming: at most one write per this many ms (saver.ts). A sync
 *  of 32 x 250 points here wrote its state 37 times (after nearly every answer), grouped 21 times,
 *  and its process used a median of 209 ms of CPU against 246 (16 syncs each, alternating). */
const SAVE_GAP_MS = 50;

/** The stage-2 state: cursors and run ids (state.ts) and what was not delivered (delivery.ts). */
export type SendState = RemoteState & DeliveryState;

const tagOf = (run: Run, key: string) => run.data.tags?.find((t) => t.key === key)?.value;

export class RemoteSync {
  readonly warnings: string[] = [];
  /** Timestamp of the first unsent point per stream, for the lag in progress lines. */
  readonly firstUnsent = new Map<string, number>();
  private readonly sender: Sender;
  private readonly uploads: Uploader;
  private readonly saver: GroupedSaver;
  /** Requests of this sync waiting for the limit or in flight. */
  private requests = 0;

  private constructor(
    readonly client: MlflowClient,
    readonly runDir: string,
    readonly file: string,
    readonly state: SendState,
    private readonly who: Who,
  ) {
    this.sender = new Sender(client, state, (m) => this.warnings.push(m));
    this.uploads = new Uploader(client, runDir, state, () => this.save(), this.warnings);
    // the write is done off the event loop: answers keep being read and requests sent meanwhile
    this.saver = new GroupedSaver(
      () => saveStateAsync(this.runDir, this.file, { ...this.state, updated_at: Date.now() }),
      SAVE_GAP_MS,
    );
  }

  static async open(client: MlflowClient, runDir: string, who: Who): Promise<RemoteSync> {
    const file = trackingFiles(runDir).remote(client.uri);
    return new RemoteSync(client, runDir, file, loadRemote(runDir, file, client.uri), who);
  }

  /** An atomic save of the state (saver.ts), as soon as the write in progress is done. */
  private save(): Promise<void> {
    return this.saver.now();
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

  /** The experiment and the parent run (found by its job-key tag, else created): what every rank
   *  run and every point waits for. It needs no rank, so it goes out while stage 1 reads the logs. */
  private async ensureParent(
    job: JobRecord | undefined,
    local: LocalSpool,
    experimentFlag: string | undefined,
    env: NodeJS.ProcessEnv,
  ): Promise<void> {
    try {
      await this.ensureParentOnce(job, local, experimentFlag, env);
    } catch (err) {
      // what this sync searched or created is asked again by the next: a parent whose create
      // failed may yet exist (an answer lost after the server made it), found then by its tag
      this.found = undefined;
      throw err;
    }
  }

  private async ensureParentOnce(
    job: JobRecord | undefined,
    local: LocalSpool,
    experimentFlag: string | undefined,
    env: NodeJS.ProcessEnv,
  ): Promise<void> {
    const s = this.state;
    this.job = job;
    if (!s.experiment_id) {
      s.experiment = experimentName(experimentFlag, job, env, this.runDir);
      const exp = await this.client.findOrCreateExperiment(s.experiment);
      s.experiment_id = exp.id;
      if (exp.created) this.found = []; // an experiment this sync created holds none of the job's runs
      await this.save();
    }
    if (s.parent_run_id) return;
    const found = (await this.jobRuns(local)).find((r) => tagOf(r, TAG_ROLE) === 'parent');
    const facts = readRankFacts(this.runDir, 0);
    const run =
      found ??
      (await this.client.createRun({
        experimentId: s.experiment_id,
        runName: parentName(job, this.runDir),
        startTime: 1000 * (job?.state?.started_at ?? job?.submitted_at ?? Date.now() / 1000),
        tags: parentTags(job, this.runDir, local.state.job_key, facts, this.who),
      }));
    s.parent_run_id = run.info.run_id;
    await this.save();
  }

  /** The parent (ensureParent), then the runs of `ranks` (default: those stage 1 has seen): found
   *  by their job-key tag where a crash left them after their create, else created, each create
   *  started under the request limit and not waited for (sendAll sends a run's points the moment
   *  it exists). A rank run's create needs the parent and the rank's facts, not its points, so
   *  the ranks whose logs exist are asked for while stage 1 still reads them. */
  async ensureRuns(
    job: JobRecord | undefined,
    local: LocalSpool,
    experimentFlag: string | undefined,
    env: NodeJS.ProcessEnv,
    ranks: readonly string[] = Object.keys(local.state.ranks),
  ): Promise<void> {
    await this.ensureParent(job, local, experimentFlag, env);
    const s = this.state;
    const missing = ranks.filter((r) => !s.rank_run_ids[r] && !this.creating.has(r));
    if (missing.length) {
      const existing = await this.jobRuns(local);
      for (const r of missing) {
        const found = existing.find((x) => tagOf(x, TAG_ROLE) === 'rank' && tagOf(x, TAG_RANK) === r);
        if (found) s.rank_run_ids[r] = found.info.run_id;
        else void this.rankRun(r, job, local);
      }
    }
    this.found = undefined; // the next sync searches again
  }

  /** The job's runs on the server (by its job-key tag), searched once per sync. */
  private async jobRuns(local: LocalSpool): Promise<Run[]> {
    this.found ??= await this.client.searchAllRuns(
      [this.state.experiment_id!],
      jobFilter(local.state.job_key),
    );
    return this.found;
  }

  /** The rank's run, created (with its tags) under the request limit, once per cycle: a failed
   *  create is not asked again before settleRankRuns (an answer lost after the server made the run
   *  would make a second one); the next cycle's search by tag finds it if it was made. */
  private rankRun(r: string, job: JobRecord | undefined, local: LocalSpool): Promise<string> {
    const s = this.state;
    if (s.rank_run_ids[r]) return Promise.resolve(s.rank_run_ids[r]);
    let p = this.creating.get(r);
    if (!p) {
      p = this.inFlight(async () => {
        const facts = readRankFacts(this.runDir, Number(r));
        const tags = childTags(Number(r), local.state.job_key, s.parent_run_id!, facts, this.who);
        const run = await this.client.createRun({
          experimentId: s.experiment_id!,
          runName: `rank-${r}`,
          startTime: Math.round(
            1000 * (facts?.started_at ?? job?.state?.started_at ?? job?.submitted_at ?? Date.now() / 1000),
          ),
          tags,
        });
        s.rank_run_ids[r] = run.info.run_id;
        s.tagged[`rank-${r}`] = digest(tags); // created with these very tags: syncTags need not send them
        return run.info.run_id; // saved with the run's first cursor, or at the end of sendAll
      });
      this.creating.set(r, p);
      p.catch(() => undefined); // said by the stream that waits for it (sendAll), or by the next cycle
    }
    return p;
  }

  /** The end of a cycle: every rank run's create it started is answered (or failed), and the next
   *  cycle may ask again for those that failed. */
  async settleRankRuns(): Promise<void> {
    await Promise.allSettled(this.creating.values());
    this.creating.clear();
  }

  /** Tags and params follow job.json and the rank facts, which appear and change while the job runs. */
  async syncTags(job: JobRecord | undefined, local: LocalSpool): Promise<void> {
    const s = this.state;
    if (!s.parent_run_id) return;
    const facts0 = readRankFacts(this.runDir, 0);
    const want = {
      tags: parentTags(job, this.runDir, local.state.job_key, facts0, this.who),
      params: parentParams(job),
    };
    const d = digest([...want.tags, ...want.params.map((p) => ({ key: `param:${p.key}`, value: p.value }))]);
    if (s.tagged.parent !== d) {
      this.refuseClashes(s.parent_run_id, job);
      countLost(this.state, await this.sender.send(s.parent_run_id, want));
      s.tagged.parent = d;
      await this.save();
    }
    await this.uploads.runDirFile(
      s.parent_run_id,
      'job.sbatch',
      runPaths(this.runDir).script,
      'text/x-shellscript',
    );
    for (const [r, id] of Object.entries(s.rank_run_ids)) {
      const tags = childTags(
        Number(r),
        local.state.job_key,
        s.parent_run_id,
        readRankFacts(this.runDir, Number(r)),
        this.who,
      );
      const dr = digest(tags);
      if (s.tagged[`rank-${r}`] === dr) continue;
      countLost(this.state, await this.sender.send(id, { tags }));
      s.tagged[`rank-${r}`] = dr;
      await this.save();
    }
  }

  /** One limit for every request of this sync (PostgreSQL with 4 workers gains from 4 in flight;
   *  sqlite's one worker does as well or better at 1: BENCHMARKS.md), counting what waits for it. */
  private readonly gate = limiter(LIMIT);
  private readonly inFlight: Gate = async (task) => {
    this.requests++;
    try {
      return await this.gate(task);
    } finally {
      this.requests--;
    }
  };
  private readonly creating = new Map<string, Promise<string>>();
  /** The job record of the last ensureParent (the rank runs' start times). */
  private job: JobRecord | undefined;
  /** This sync's search for the job's runs (jobRuns), or [] in an experiment it created. */
  private found: Run[] | undefined;

  /** Send every committed spool record not yet acknowledged, creating the rank runs still missing
   *  on the way; streams take turns for the request limit (pump.ts). */
  async sendAll(local: LocalSpool): Promise<void> {
    const job = this.job;
    const s = this.state;
    const parent = () => Promise.resolve(s.parent_run_id);
    const streams = spoolStreams(local, parent, (r) => () => this.rankRun(r, job, local));
    await pump(streams, {
      runDir: this.runDir,
      tickets: 2 * LIMIT, // the next requests ready while the limit's are in flight
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
        return this.requests > 0 ? this.saver.grouped() : this.save();
      },
      unsent: (id, ts) => (ts === undefined ? this.firstUnsent.delete(id) : this.firstUnsent.set(id, ts)),
    });
    if (this.creating.size) await this.save(); // runs without points to send
  }

  /** The job ended and everything is sent: logs as artifacts, then the final status and end time. */
  async finish(job: JobRecord | undefined, finalState: JobStateName | undefined): Promise<void> {
    const s = this.state;
    if (s.finished || !s.parent_run_id) return;
    const paths = runPaths(this.runDir);
    await this.uploads.runDirFile(s.parent_run_id, 'job.json', paths.jobJson, 'application/json');
    await this.uploads.outputs(s.parent_run_id, job);
    const status = runStatusFor(finalState ?? job?.state?.name, true);
    const endMs = Math.round(1000 * (job?.state?.ended_at ?? Date.now() / 1000));
    // Ranks a few at a time (their saves coalesce in save()).
    const endRank = async (rank: number, id: string) => {
      await this.uploads.runDirFile(id, `logs/rank-${rank}.out`, paths.rankOut(rank), 'text/plain');
      await this.uploads.runDirFile(id, `logs/rank-${rank}.err`, paths.rankErr(rank), 'text/plain');
      const facts = readRankFacts(this.runDir, rank);
      const end = facts?.ended_at ? Math.round(facts.ended_at * 1000) : endMs;
      await this.client.updateRun(id, { status: rankStatusFor(status, facts?.exit_code), endTime: end });
    };
    const ranks = Object.entries(s.rank_run_ids);
    await settleAllValues(ranks.map(([r, id]) => this.inFlight(() => endRank(Number(r), id))));
    await this.client.updateRun(s.parent_run_id, { status, endTime: endMs });
    s.finished = status;
    await this.save();
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
