// The spool stage for the whole run dir: every rank's new lines and its node's new resource
// samples, then the aggregates that became ready, then commit state.json. A crash anywhere leaves
// spools longer than state.json says; open() cuts them back, so every line is spooled exactly once.
import {
  appendDurable,
  ensureTrackingDirs,
  listNodeResourceFiles,
  listRanks,
  listSpools,
  readRankFacts,
  trackingPaths,
  truncateTo,
  TrackLaunchError,
  writeTrackingState,
  type JobRecord,
} from '../../core';
import { PointColumns } from '../logs/columns';
import { MAX_LINE } from '../logs/lines';
import { parserFor, type LineParser } from '../parsers';
import type { MetricPoint } from '../types';
import { Aggregator, settle, sourceKey, type KeySeries } from './aggregate';
import { encodeRecords, readRecords } from './records';
import { spoolRank } from './spool';
import { spoolNode, spoolSystem } from './system-spool';
import { jobKey, loadSpoolState, newCursor, type SpoolState } from './state';

export class SpoolStage {
  /** Truncated logs seen by this ingest (warnings). */
  private readonly notes: string[] = [];
  /** Ranks with lines cut at MAX_LINE: how many in all (warnings). */
  private readonly cut = new Map<number, number>();
  /** Per rank, since when (ingestion's clock) lines at `out` have been waiting for their times. */
  private readonly waiting = new Map<number, { out: number; since: number }>();
  /** Each read's points, one rank at a time (steps run one after another): the same columns refilled. */
  private readonly cols = new PointColumns();
  /** Read back from the spools on first need (aggregator()): often nothing is left to aggregate. */
  private agg: Aggregator | undefined;
  /** Whether this step() spooled any rank's points (at the end, the aggregates are settled again). */
  private spooledPoints = false;
  private constructor(
    readonly runDir: string,
    readonly state: SpoolState,
    private readonly parser: LineParser,
  ) {}

  get files() {
    return trackingPaths(this.runDir);
  }

  static async open(
    runDir: string,
    job: JobRecord | undefined,
    format: string | undefined,
  ): Promise<SpoolStage> {
    const files = trackingPaths(runDir);
    ensureTrackingDirs(runDir);
    const chosen = format ?? job?.spec?.metrics_format ?? 'auto';
    let state = loadSpoolState(runDir);
    if (
      state &&
      format !== undefined &&
      format !== state.format &&
      Object.values(state.ranks).some((r) => r.points > 0)
    ) {
      const hint = `keep ${state.format}, or move ${files.dir} away to ingest everything again with ${format} (into new runs)`;
      const message = `this run dir was ingested with --metrics-format ${state.format}, not ${format}`;
      throw new TrackLaunchError('USAGE', message, { hint });
    }
    const parser = parserFor(state && format === undefined ? state.format : chosen); // refuses a bad one
    if (state && state.format !== chosen && format !== undefined) {
      state = { ...state, format: chosen }; // nothing parsed yet (made at submit): the format given counts
      writeTrackingState(runDir, files.spoolState, state);
    }
    if (!state) {
      state = {
        version: 1,
        job_key: jobKey(job),
        format: chosen,
        ranks: {},
        parent: { spool: 0, points: 0 },
      };
      writeTrackingState(runDir, files.spoolState, state);
    }
    await truncateTo(runDir, files.parentSpool, state.parent.spool);
    // every spool, also of ranks whose first commit never happened (their committed size is 0)
    for (const name of listSpools(runDir)) {
      const m = /^rank-(\d+)\.jsonl$/.exec(name);
      if (m) await truncateTo(runDir, files.rankSpool(m[1]), state.ranks[m[1]]?.spool ?? 0);
      const sys = /^rank-(\d+)\.system\.jsonl$/.exec(name);
      if (sys) await truncateTo(runDir, files.systemSpool(sys[1]), state.ranks[sys[1]]?.sys?.spool ?? 0);
      const node = /^node-(.+)\.system\.jsonl$/.exec(name);
      if (node) await truncateTo(runDir, files.nodeSystemSpool(node[1]), state.nodes?.[node[1]]?.spool ?? 0);
    }
    return new SpoolStage(runDir, state, parser);
  }

  /** The aggregator as of the last commit: what the parent spool holds is done, the ranks' points
   *  of steps not aggregated yet are pending. Read before this ingest appends to any spool. A commit
   *  that left nothing pending (parent.pending 0) needs no rank spool: all their points are done. */
  private async aggregator(): Promise<Aggregator> {
    if (this.agg) return this.agg;
    const agg = new Aggregator(this.state.parent.repeated ?? 0);
    const files = this.files;
    await forEachRecord(this.runDir, files.parentSpool, this.state.parent.spool, (p) =>
      agg.markDone(sourceKey(p.key), p.step),
    );
    if (this.state.parent.pending !== 0) {
      for (const [rank, cur] of Object.entries(this.state.ranks)) {
        await forEachRecord(this.runDir, files.rankSpool(rank), cur.spool, (p) =>
          agg.restore(Number(rank), p),
        );
      }
    }
    this.agg = agg;
    return agg;
  }

  /** Spool what is new: the number of new points (ranks + aggregates), and of lines still
   *  waiting for their time in .out.ts. Ranks are read a bounded chunk at a time, round robin, until
   *  none has more: memory holds one rank's chunk at once, whatever the rank count or log sizes. */
  async step(
    job: JobRecord | undefined,
    final: boolean,
    now = Date.now(),
    graceMs = 5000,
    noWait = false,
  ): Promise<{ added: number; held: number }> {
    let added = 0;
    let held = 0;
    let ranks = listRanks(this.runDir);
    for (let pass = 0; ranks.length > 0; pass++) {
      const again: number[] = [];
      for (const rank of ranks) {
        const r = await this.stepRank(rank, { final, now, graceMs, noWait }, pass === 0);
        added += r.added;
        held += r.held;
        if (r.more) again.push(rank);
      }
      ranks = again;
    }
    // Each node's samples once, for the parent run: one stream per node file, whatever the number of
    // ranks there, found by its file, so a node is spooled before any rank there wrote its facts.
    for (const { host } of listNodeResourceFiles(this.runDir)) {
      const node = await spoolNode(this.runDir, host, this.state.nodes?.[host]);
      if (!node) continue;
      await appendDurable(this.runDir, this.files.nodeSystemSpool(host), node.data);
      this.state.nodes = { ...this.state.nodes, [host]: node.cursor };
      added += node.points;
    }
    const aggs = final ? await this.settleIfNeeded() : await this.takeReady(job);
    if (aggs.length) {
      const data = encodeRecords(aggs);
      await appendDurable(this.runDir, this.files.parentSpool, data);
      this.state.parent = {
        ...this.state.parent,
        spool: this.state.parent.spool + Buffer.byteLength(data),
        points: this.state.parent.points + aggs.length,
      };
      added += aggs.length;
    }
    writeTrackingState(this.runDir, this.files.spoolState, this.state);
    return { added, held };
  }

  /** While the job runs: the aggregates of the steps every rank reported. */
  private async takeReady(job: JobRecord | undefined): Promise<MetricPoint[]> {
    // nothing new and nothing pending at the last commit: no aggregate can be ready
    const agg = this.agg ?? (this.state.parent.pending === 0 ? undefined : await this.aggregator());
    if (!agg) return [];
    const aggs = agg.take(job?.spec?.world_size);
    this.state.parent = { ...this.state.parent, pending: agg.pendingCount, repeated: agg.repeatedCount };
    return aggs;
  }

  /** At the end: every step from the ranks' latest points (settle), unless nothing changed since the
   *  last settle. Reads every rank spool and the parent spool as they are now. */
  private async settleIfNeeded(): Promise<MetricPoint[]> {
    const { pending, repeated } = this.state.parent;
    if (!this.spooledPoints && pending === 0 && !repeated) return [];
    const last = new Map<string, Map<number, number>>();
    await forEachRecord(this.runDir, this.files.parentSpool, this.state.parent.spool, (p) => {
      let steps = last.get(p.key);
      if (!steps) last.set(p.key, (steps = new Map()));
      steps.set(p.step, p.value);
    });
    const ranks = new Map<number, Map<string, KeySeries>>();
    for (const [rank, cur] of Object.entries(this.state.ranks)) {
      const keys = new Map<string, KeySeries>();
      ranks.set(Number(rank), keys);
      await forEachRecord(this.runDir, this.files.rankSpool(rank), cur.spool, (p) => {
        let s = keys.get(p.key);
        if (!s) keys.set(p.key, (s = { steps: [], values: [], times: [] }));
        s.steps.push(p.step);
        s.values.push(p.value);
        s.times.push(p.timestamp);
      });
    }
    this.agg = undefined; // its steps are settled now: read back again if a later step needs it
    this.spooledPoints = false;
    this.state.parent = { ...this.state.parent, pending: 0, repeated: 0 };
    return settle(ranks, last);
  }

  /** One bounded read of a rank's log (and, on the first pass, its node's new samples). */
  private async stepRank(
    rank: number,
    opts: { final: boolean; now: number; graceMs: number; noWait: boolean },
    withSystem: boolean,
  ): Promise<{ added: number; held: number; more: boolean }> {
    const cur = this.state.ranks[rank] ?? newCursor();
    let next = cur;
    let added = 0;
    const waiting = this.waiting.get(rank);
    const since = waiting?.out === cur.out ? waiting.since : opts.now;
    const s = await spoolRank(
      this.runDir,
      rank,
      this.parser,
      cur,
      { ...opts, waitingSince: since },
      this.cols,
    );
    if (s.held > 0)
      this.waiting.set(rank, { out: s.cursor.out, since: s.cursor.out === cur.out ? since : opts.now });
    else this.waiting.delete(rank);
    if ((s.cursor.truncated ?? 0) > (cur.truncated ?? 0)) {
      this.notes.push(
        `logs/rank-${rank}.out was truncated (it shrank below the ${cur.out} bytes already read): lines written after the cut are read from its start`,
      );
    }
    if ((s.cursor.cut ?? 0) > (cur.cut ?? 0)) this.cut.set(rank, s.cursor.cut ?? 0);
    if (s.cursor !== cur) {
      // read before the append; at the end, settle() reads the spools instead
      const agg = s.points.length && !opts.final ? await this.aggregator() : undefined;
      if (s.points.length) this.spooledPoints = true;
      await appendDurable(this.runDir, this.files.rankSpool(rank), s.data);
      next = s.cursor;
      agg?.addColumns(rank, s.points);
      added += s.points.length;
    }
    // The rank's own GPU from its node's samples (docs/cluster.md), also for a rank that printed
    // nothing: it gets a run for them. Host and local rank are the bootstrap's (logs/rank-R.json).
    const facts = withSystem ? readRankFacts(this.runDir, rank) : undefined;
    const sys = facts ? await spoolSystem(this.runDir, facts.host, next.sys, facts.local_rank) : undefined;
    if (sys) {
      await appendDurable(this.runDir, this.files.systemSpool(rank), sys.data);
      next = { ...next, sys: sys.cursor };
      added += sys.points;
    }
    if (next !== cur) this.state.ranks[rank] = next;
    return { added, held: s.held, more: s.more };
  }

  /** Things the user should know about the logs, for the summary: truncated logs, cut lines. */
  get warnings(): string[] {
    const cut = [...this.cut].map(
      ([rank, n]) =>
        `logs/rank-${rank}.out has ${n} line${n === 1 ? '' : 's'} longer than ${MAX_LINE} bytes: each was cut to its first ${MAX_LINE} bytes (the rest skipped)`,
    );
    return [...this.notes, ...cut];
  }

  get pointsSpooled(): number {
    return (
      Object.values(this.state.ranks).reduce((n, r) => n + r.points + (r.sys?.points ?? 0), 0) +
      this.state.parent.points +
      Object.values(this.state.nodes ?? {}).reduce((n, c) => n + c.points, 0)
    );
  }
}

/** The records of a spool's first `size` bytes, read a bounded window at a time. */
async function forEachRecord(
  runDir: string,
  file: string,
  size: number,
  fn: (p: MetricPoint) => void,
): Promise<void> {
  for (let from = 0; from < size;) {
    const recs = await readRecords(runDir, file, from, size);
    for (const r of recs) fn(r.point);
    from = recs[recs.length - 1].end;
  }
}
