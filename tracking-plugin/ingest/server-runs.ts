// The job's runs on the server: the experiment, the parent run and one run per rank. Each is
// found by the job-key tag first (a crash between create and save, or a create whose answer was
// lost, made the run anyway), else created. None of them needs the points, so their creates go
// out while the spool stage still reads the logs; a rank run's points are sent once it exists (pump.ts).
import { readRankFacts, type JobRecord } from '../../core';
import type { MlflowClient } from '../mlflow/client';
import type { Run } from '../mlflow/types';
import type { Gate } from './limiter';
import type { SpoolStage } from './spool-stage';
import type { ServerState } from './state';
import {
  childTags,
  digest,
  experimentName,
  jobFilter,
  parentName,
  parentTags,
  TAG_RANK,
  TAG_ROLE,
  type Who,
} from './tags';

const tagOf = (run: Run, key: string) => run.data.tags?.find((t) => t.key === key)?.value;

export class ServerRuns {
  /** The rank runs' creates started in this cycle (settle() ends them). */
  private readonly creating = new Map<string, Promise<string>>();
  /** The job record of the last ensure() (the rank runs' start times). */
  private job: JobRecord | undefined;
  /** This ingest's search for the job's runs (jobRuns), or [] in an experiment it created. */
  private found: Run[] | undefined;

  constructor(
    private readonly client: MlflowClient,
    private readonly runDir: string,
    private readonly state: ServerState,
    private readonly who: Who,
    private readonly save: () => Promise<void>,
    /** The request limit, which the rank runs' creates share with the points. */
    private readonly inFlight: Gate,
  ) {}

  /** Rank runs' creates started in this cycle. */
  get started(): number {
    return this.creating.size;
  }

  /** The experiment and the parent run, then the runs of `ranks` (default: those the spool has
   *  seen), each rank run's create started under the request limit and not waited for. */
  async ensure(
    job: JobRecord | undefined,
    spool: SpoolStage,
    experimentFlag: string | undefined,
    env: NodeJS.ProcessEnv,
    ranks: readonly string[] = Object.keys(spool.state.ranks),
  ): Promise<void> {
    try {
      await this.ensureParent(job, spool, experimentFlag, env);
      const s = this.state;
      const missing = ranks.filter((r) => !s.rank_run_ids[r] && !this.creating.has(r));
      if (!missing.length) return;
      const existing = await this.jobRuns(spool);
      for (const r of missing) {
        const found = existing.find((x) => tagOf(x, TAG_ROLE) === 'rank' && tagOf(x, TAG_RANK) === r);
        if (found) s.rank_run_ids[r] = found.info.run_id;
        else void this.rank(r, spool);
      }
    } finally {
      // the next ingest searches again: a create that failed may yet have made its run
      this.found = undefined;
    }
  }

  /** Every run of `ranks` now, waited for and saved (submit --mlflow-env: before the job starts);
   *  the first create that failed is thrown, after the ids of those made are saved. */
  async ensureAll(
    job: JobRecord,
    spool: SpoolStage,
    experimentFlag: string | undefined,
    env: NodeJS.ProcessEnv,
    ranks: readonly string[],
  ): Promise<void> {
    await this.ensure(job, spool, experimentFlag, env, ranks);
    const made = await Promise.allSettled(ranks.map((r) => this.rank(r, spool)));
    await this.settle();
    await this.save();
    const failed = made.find((m): m is PromiseRejectedResult => m.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** The experiment and the parent run: what every rank run and every point waits for. */
  private async ensureParent(
    job: JobRecord | undefined,
    spool: SpoolStage,
    experimentFlag: string | undefined,
    env: NodeJS.ProcessEnv,
  ): Promise<void> {
    const s = this.state;
    this.job = job;
    if (!s.experiment_id) {
      s.experiment = experimentName(experimentFlag, job, env, this.runDir);
      const exp = await this.client.findOrCreateExperiment(s.experiment);
      s.experiment_id = exp.id;
      if (exp.created) this.found = []; // an experiment this ingest created holds none of the job's runs
      await this.save();
    }
    if (s.parent_run_id) return;
    const found = (await this.jobRuns(spool)).find((r) => tagOf(r, TAG_ROLE) === 'parent');
    const facts = readRankFacts(this.runDir, 0);
    const run =
      found ??
      (await this.client.createRun({
        experimentId: s.experiment_id,
        runName: parentName(job, this.runDir),
        startTime: 1000 * (job?.state?.started_at ?? job?.submitted_at ?? Date.now() / 1000),
        tags: parentTags(job, this.runDir, spool.state.job_key, facts, this.who),
      }));
    s.parent_run_id = run.info.run_id;
    await this.save();
  }

  /** The job's runs on the server (by its job-key tag), searched once per ingest. */
  private async jobRuns(spool: SpoolStage): Promise<Run[]> {
    this.found ??= await this.client.searchAllRuns(
      [this.state.experiment_id!],
      jobFilter(spool.state.job_key),
    );
    return this.found;
  }

  /** The rank's run, created (with its tags) under the request limit, once per cycle: a failed
   *  create is not asked again before settle() (an answer lost after the server made the run
   *  would make a second one); the next cycle's search by tag finds it if it was made. */
  rank(r: string, spool: SpoolStage): Promise<string> {
    const s = this.state;
    if (s.rank_run_ids[r]) return Promise.resolve(s.rank_run_ids[r]);
    let p = this.creating.get(r);
    if (!p) {
      const job = this.job;
      p = this.inFlight(async () => {
        const facts = readRankFacts(this.runDir, Number(r));
        const tags = childTags(Number(r), spool.state.job_key, s.parent_run_id!, facts, this.who);
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
  async settle(): Promise<void> {
    await Promise.allSettled(this.creating.values());
    this.creating.clear();
  }
}
