// The effects of `list`: the index, each job's record (--refresh: asked anew), the jobs' MLflow links.
import { isFinal, readJobIndex, readJobRecordIfAny, TrackLaunchError } from '../../core';
import type { JobIndexEntry, JobRecord } from '../../core';
import { executorFor } from '../../launcher';
import { trackedRunUrl } from '../mlflow-link';
import { trackerView } from '../tracker-view';
import { newestFirst } from './filter';
import { goneRow, type JobRow, type ListedState, recordRow } from './row';

export interface ListOptions {
  states?: Set<ListedState>;
  nameMatches: (name: string) => boolean;
  limit: number;
  /** Ask Slurm (or the local supervisor) for jobs whose record has no final state: one call each. */
  refresh: boolean;
}

/** A problem with one job never hides the others: it is said on that job's row. */
const problemOf = (err: unknown): string => {
  if (err instanceof TrackLaunchError) return err.message;
  throw err;
};

async function rowFor(e: JobIndexEntry, refresh: boolean): Promise<JobRow> {
  let rec: JobRecord | undefined;
  try {
    rec = readJobRecordIfAny(e.run_dir);
  } catch (err) {
    return { ...goneRow(e), state: 'UNKNOWN', problem: problemOf(err) };
  }
  if (!rec) return goneRow(e);
  if (refresh && !isFinal(rec)) {
    try {
      rec = await executorFor(rec.executor).refresh(e.run_dir);
    } catch (err) {
      return { ...recordRow(e, rec), problem: `not refreshed: ${problemOf(err)}` };
    }
  }
  return recordRow(e, rec);
}

export async function listJobs(opts: ListOptions): Promise<{ rows: JobRow[]; malformed: number }> {
  const { entries, malformed } = readJobIndex();
  const rows: JobRow[] = [];
  for (const e of newestFirst(entries)) {
    if (rows.length >= opts.limit) break;
    const row = await rowFor(e, opts.refresh);
    if (opts.states && !opts.states.has(row.state)) continue;
    if (!opts.nameMatches(row.name ?? '')) continue;
    rows.push(row);
  }
  for (const row of rows) {
    if (row.state === 'GONE') continue;
    try {
      const rec = readJobRecordIfAny(row.run_dir);
      const { tracker: t, untracked } = rec
        ? trackerView(row.run_dir, rec)
        : { tracker: null, untracked: false };
      row.tracker = t && { placement: t.placement, host: t.host, pid: t.pid, alive: t.alive };
      row.untracked = untracked;
      row.mlflow_url = (await trackedRunUrl(row.run_dir)) ?? null;
    } catch (err) {
      row.problem = `MLflow state unreadable: ${problemOf(err)}`;
    }
  }
  return { rows, malformed };
}
