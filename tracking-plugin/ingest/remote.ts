// Stage 2, network: find or create the job's runs (ids persisted the moment they exist; a search
// by job-key tag first, so a crash between create and persist cannot make a second run), keep
// tags current, send the spools from persisted cursors, and finish the runs when the job ended.
import { limiter } from './limiter';
import { readRange, readRankFacts, runPaths, type JobRecord, type JobStateName } from '../../core';
import type { MlflowClient } from '../mlflow/client';
import type { Run } from '../mlflow/types';
import { rankStatusFor, runStatusFor } from '../status';
import type { LocalSpool } from './run-spool';
import { decodeRecords } from './records';
import {
  firstRefusal,
  recordUndelivered,
  undeliveredOf,
  type DeliveryState,
  type Undelivered,
} from './delivery';
import { countLost, Sender, settleAllValues, type Sent } from './sender';
import { loadRemote, saveState, trackingFiles, type RemoteState } from './state';
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
import { Uploader } from './uploads';

const WINDOW = 4 << 20; // spool bytes read at a time
const PER_REQUEST = 1000; // MLflow's metrics per log-batch

/** The stage-2 state: cursors and run ids (state.ts) and what was not delivered (delivery.ts). */
export type SendState = RemoteState & DeliveryState;

const tagOf = (run: Run, key: string) => run.data.tags?.find((t) => t.key === key)?.value;

export class RemoteSync {
  private saving: Promise<void> = Promise.resolve();
  readonly warnings: string[] = [];
  /** Timestamp of the first unsent point per stream, for the lag in progress lines. */
  readonly firstUnsent = new Map<string, number>();
  private readonly sender: Sender;
  private readonly uploads: Uploader;

  private constructor(
    readonly client: MlflowClient,
    readonly runDir: string,
    readonly file: string,
    readonly state: SendState,
    private readonly who: Who,
  ) {
    this.sender = new Sender(client, state, (m) => this.warnings.push(m));
    this.uploads = new Uploader(client, runDir, state, () => this.save(), this.warnings);
  }

  static async open(client: MlflowClient, runDir: string, who: Who): Promise<RemoteSync> {
    const file = trackingFiles(runDir).remote(client.uri);
    return new RemoteSync(client, runDir, file, loadRemote(runDir, file, client.uri), who);
  }

  /** Serialised, atomic saves of the cursors (parallel streams share one file). */
  private save(): Promise<void> {
    const snapshot = JSON.parse(JSON.stringify({ ...this.state, updated_at: Date.now() })) as RemoteState;
    this.saving = this.saving.then(() => saveState(this.runDir, this.file, snapshot));
    return this.saving;
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

  async ensureRuns(
    job: JobRecord | undefined,
    local: LocalSpool,
    experimentFlag: string | undefined,
    env: NodeJS.ProcessEnv,
  ): Promise<void> {
    const s = this.state;
    if (!s.experiment_id) {
      s.experiment = experimentName(experimentFlag, job, env, this.runDir);
      s.experiment_id = await this.client.getOrCreateExperiment(s.experiment);
      await this.save();
    }
    const ranks = Object.keys(local.state.ranks);
    if (s.parent_run_id && ranks.every((r) => s.rank_run_ids[r])) return;
    const existing = await this.client.searchAllRuns([s.experiment_id], jobFilter(local.state.job_key));
    if (!s.parent_run_id) {
      const found = existing.find((r) => tagOf(r, TAG_ROLE) === 'parent');
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
    // Rank runs are created a few at a time, and saved once: a crash in between loses nothing, as
    // the next sync finds the runs already made by their job key tag (the search above).
    const missing = ranks.filter((r) => !s.rank_run_ids[r]);
    await settleAll(missing.map((r) => this.inFlight(() => this.rankRun(r, job, local, existing))));
    if (missing.length) await this.save();
  }

  private async rankRun(r: string, job: JobRecord | undefined, local: LocalSpool, existing: Run[]) {
    const s = this.state;
    const found = existing.find((x) => tagOf(x, TAG_ROLE) === 'rank' && tagOf(x, TAG_RANK) === r);
    const facts = readRankFacts(this.runDir, Number(r));
    const tags = childTags(Number(r), local.state.job_key, s.parent_run_id!, facts, this.who);
    const run =
      found ??
      (await this.client.createRun({
        experimentId: s.experiment_id!,
        runName: `rank-${r}`,
        startTime: Math.round(
          1000 * (facts?.started_at ?? job?.state?.started_at ?? job?.submitted_at ?? Date.now() / 1000),
        ),
        tags,
      }));
    s.rank_run_ids[r] = run.info.run_id;
    // created with these very tags: syncTags need not send them again
    if (!found) s.tagged[`rank-${r}`] = digest(tags);
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

  /** Send every committed spool record not yet acknowledged; streams in parallel, a few requests each. */
  /** One limit for every stream of this sync (1 vs 4 in flight gives the same rate on sqlite). */
  private readonly inFlight = limiter(4);

  async sendAll(local: LocalSpool): Promise<void> {
    const files = local.files;
    const streams: { id: string; runId: string | undefined; file: string; size: number }[] = [
      {
        id: 'parent',
        runId: this.state.parent_run_id,
        file: files.parentSpool,
        size: local.state.parent.spool,
      },
      ...Object.entries(local.state.ranks).map(([r, c]) => ({
        id: `rank-${r}`,
        runId: this.state.rank_run_ids[r],
        file: files.rankSpool(r),
        size: c.spool,
      })),
      // the rank's own GPU: a stream of its own (own spool, own acknowledged offset), same run
      ...Object.entries(local.state.ranks)
        .filter(([, c]) => c.sys)
        .map(([r, c]) => ({
          id: `system-${r}`,
          runId: this.state.rank_run_ids[r],
          file: files.systemSpool(r),
          size: c.sys?.spool ?? 0,
        })),
      // each node's samples, once, on the parent run: one stream per node (node-spool.ts)
      ...Object.entries(local.state.nodes ?? {}).map(([host, c]) => ({
        id: `node-${host}`,
        runId: this.state.parent_run_id,
        file: files.nodeSystemSpool(host),
        size: c.spool,
      })),
    ];
    const perStream = Math.max(1, Math.min(4, Math.floor(8 / streams.length)));
    // Every stream ends before a failure is reported: a stream still sending after its sibling
    // failed would race the next cycle's sender from the same cursor and count its points twice.
    await settleAll(
      streams.map((st) =>
        st.runId ? this.sendStream(st.id, st.runId, st.file, st.size, perStream) : undefined,
      ),
    );
  }

  private async sendStream(
    id: string,
    runId: string,
    file: string,
    to: number,
    concurrency: number,
  ): Promise<void> {
    let from = this.state.sent[id] ?? 0;
    while (from < to) {
      const recs = decodeRecords(await readRange(this.runDir, file, from, Math.min(WINDOW, to - from)), from);
      if (!recs.length) throw new Error(`spool ${file} has a record longer than ${WINDOW} bytes at ${from}`);
      this.firstUnsent.set(id, recs[0].point.timestamp);
      for (let i = 0; i < recs.length; i += PER_REQUEST * concurrency) {
        const group = recs.slice(i, i + PER_REQUEST * concurrency);
        const sent: Sent = await this.sender.send(
          runId,
          { metrics: group.map((r) => r.point) },
          this.inFlight,
        );
        // the cursor, the points delivered and those left out move together (one save below)
        this.state.sent[id] = group[group.length - 1].end;
        this.state.sent_points[id] = (this.state.sent_points[id] ?? 0) + sent.delivered;
        countLost(this.state, sent);
        const next = recs[i + group.length];
        if (next) this.firstUnsent.set(id, next.point.timestamp);
        else this.firstUnsent.delete(id);
        await this.save();
      }
      from = recs[recs.length - 1].end;
    }
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
    // Ranks a few at a time (the state file's saves are serialised by save()).
    const endRank = async (rank: number, id: string) => {
      await this.uploads.runDirFile(id, `logs/rank-${rank}.out`, paths.rankOut(rank), 'text/plain');
      await this.uploads.runDirFile(id, `logs/rank-${rank}.err`, paths.rankErr(rank), 'text/plain');
      const facts = readRankFacts(this.runDir, rank);
      const end = facts?.ended_at ? Math.round(facts.ended_at * 1000) : endMs;
      await this.client.updateRun(id, { status: rankStatusFor(status, facts?.exit_code), endTime: end });
    };
    const ranks = Object.entries(s.rank_run_ids);
    await settleAll(ranks.map(([r, id]) => this.inFlight(() => endRank(Number(r), id))));
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

/** Like Promise.all, but rejects (with the first error) only once every promise has settled. */
async function settleAll(promises: readonly (Promise<unknown> | undefined)[]): Promise<void> {
  await settleAllValues(promises);
}
