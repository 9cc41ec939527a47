// Stage 1 for the whole run dir: spool every rank's new lines and its node's new resource
// samples, then the aggregates that became ready, then commit state.json. A crash anywhere leaves
// spools longer than state.json says; open() cuts them back, so every line is spooled exactly once.
import {
  appendDurable,
  ensureTrackingDirs,
  listRanks,
  listSpools,
  readRange,
  readRankFacts,
  truncateTo,
  TrackLaunchError,
  type JobRecord,
} from '../../core';
import { parserFor, type LineParser } from '../parsers';
import { Aggregator, sourceKey } from './aggregate';
import { decodeRecords, encodeRecords } from './records';
import { spoolRank } from './spool';
import { spoolSystem } from './system-spool';
import { jobKey, loadLocal, newCursor, saveState, trackingFiles, type LocalState } from './state';

export class LocalSpool {
  /** Things the user should know about the logs (a truncated log), for the summary. */
  readonly warnings: string[] = [];
  private constructor(
    readonly runDir: string,
    readonly state: LocalState,
    private readonly parser: LineParser,
    private readonly agg: Aggregator,
  ) {}

  get files() {
    return trackingFiles(this.runDir);
  }

  static async open(
    runDir: string,
    job: JobRecord | undefined,
    format: string | undefined,
  ): Promise<LocalSpool> {
    const files = trackingFiles(runDir);
    ensureTrackingDirs(runDir);
    const chosen = format ?? job?.spec?.metrics_format ?? 'auto';
    let state = loadLocal(runDir);
    if (
      state &&
      format !== undefined &&
      format !== state.format &&
      Object.values(state.ranks).some((r) => r.points > 0)
    ) {
      throw new TrackLaunchError(
        'USAGE',
        `this run dir was ingested with --metrics-format ${state.format}, not ${format}`,
        {
          hint: `keep ${state.format}, or move ${files.dir} away to ingest everything again with ${format} (into new runs)`,
        },
      );
    }
    const parser = parserFor(state?.format ?? chosen); // refuses a bad format before anything is written
    if (!state) {
      state = {
        version: 1,
        job_key: jobKey(job),
        format: chosen,
        ranks: {},
        parent: { spool: 0, points: 0 },
      };
      saveState(runDir, files.local, state);
    }
    const agg = new Aggregator();
    await truncateTo(runDir, files.parentSpool, state.parent.spool);
    for (const r of await readAll(runDir, files.parentSpool, state.parent.spool))
      agg.markDone(sourceKey(r.point.key), r.point.step);
    // every spool, also of ranks whose first commit never happened (their committed size is 0)
    for (const name of listSpools(runDir)) {
      const m = /^rank-(\d+)\.jsonl$/.exec(name);
      if (m) await truncateTo(runDir, files.rankSpool(m[1]), state.ranks[m[1]]?.spool ?? 0);
      const sys = /^rank-(\d+)\.system\.jsonl$/.exec(name);
      if (sys) await truncateTo(runDir, files.systemSpool(sys[1]), state.ranks[sys[1]]?.sys?.spool ?? 0);
    }
    for (const [rank, cur] of Object.entries(state.ranks)) {
      for (const r of await readAll(runDir, files.rankSpool(rank), cur.spool)) agg.add(Number(rank), r.point);
    }
    return new LocalSpool(runDir, state, parser, agg);
  }

  /** Spool what is new: the number of new points (ranks + aggregates), and of lines still
   *  waiting for their time in .out.ts. */
  async step(
    job: JobRecord | undefined,
    final: boolean,
    now = Date.now(),
    graceMs = 5000,
    noWait = false,
  ): Promise<{ added: number; held: number }> {
    let added = 0;
    let held = 0;
    for (const rank of listRanks(this.runDir)) {
      const cur = this.state.ranks[rank] ?? newCursor();
      let next = cur;
      const s = await spoolRank(this.runDir, rank, this.parser, cur, { final, now, graceMs, noWait });
      held += s.held;
      if ((s.cursor.truncated ?? 0) > (cur.truncated ?? 0)) {
        this.warnings.push(
          `logs/rank-${rank}.out was truncated (it shrank below the ${cur.out} bytes already read): lines written after the cut are read from its start`,
        );
      }
      if (s.cursor !== cur) {
        await appendDurable(this.runDir, this.files.rankSpool(rank), s.data);
        next = s.cursor;
        for (const p of s.points) this.agg.add(rank, p);
        added += s.points.length;
      }
      // The node's samples go to the rank's run too (docs/cluster.md), also for a rank that printed
      // nothing: it gets a run for them. The host is the bootstrap's (logs/rank-R.json), not a log line's.
      const sys = await spoolSystem(this.runDir, readRankFacts(this.runDir, rank)?.host, next.sys);
      if (sys) {
        await appendDurable(this.runDir, this.files.systemSpool(rank), sys.data);
        next = { ...next, sys: sys.cursor };
        added += sys.points;
      }
      if (next !== cur) this.state.ranks[rank] = next;
    }
    const aggs = this.agg.take(job?.spec?.world_size, final);
    if (aggs.length) {
      const data = encodeRecords(aggs);
      await appendDurable(this.runDir, this.files.parentSpool, data);
      this.state.parent = {
        spool: this.state.parent.spool + Buffer.byteLength(data),
        points: this.state.parent.points + aggs.length,
      };
      added += aggs.length;
    }
    saveState(this.runDir, this.files.local, this.state);
    return { added, held };
  }

  get pointsSpooled(): number {
    return (
      Object.values(this.state.ranks).reduce((n, r) => n + r.points + (r.sys?.points ?? 0), 0) +
      this.state.parent.points
    );
  }
}

async function readAll(runDir: string, file: string, size: number) {
  return size === 0 ? [] : decodeRecords(await readRange(runDir, file, 0, size), 0);
}
