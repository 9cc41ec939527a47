// Watch a submitted job until it ends: poll its executor, show progress, return the final record.
import { updateJobRecord } from '../rundir/job-record';
import { JobRecord } from '../rundir/layout';
import { firstFailedRank, readRankFacts } from '../rundir/rank-facts';
import { JobStatus } from '../slurm/job-status';
import { isTerminal } from '../slurm/states';

export interface FollowProgress {
  record: JobRecord;
  ranksStarted: number;
  elapsedS: number;
}

export interface FollowOptions {
  pollMs: number;
  onProgress: (p: FollowProgress) => void;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function followJob(
  runDir: string,
  refresh: (runDir: string) => Promise<JobRecord>,
  opts: FollowOptions,
): Promise<JobRecord> {
  const sleep = opts.sleep ?? defaultSleep;
  const start = Date.now();
  for (;;) {
    const record = await refresh(runDir);
    opts.onProgress({
      record,
      ranksStarted: readRankFacts(runDir).length,
      elapsedS: (Date.now() - start) / 1000,
    });
    if (record.state && isTerminal(record.state.name)) return record;
    await sleep(opts.pollMs);
  }
}

/** Record a Slurm status in job.json, with the rank that failed first (from the ranks' facts). */
export function recordState(runDir: string, status: JobStatus, ended = false): JobRecord {
  const failed = firstFailedRank(readRankFacts(runDir), status.state);
  return updateJobRecord(runDir, (r) => ({
    ...r,
    restarts: status.restarts ?? r.restarts,
    state: {
      name: status.state,
      exit_code: status.exitCode,
      signal: status.signal,
      reason: status.reason,
      nodes: status.nodes,
      ended_at: ended ? Date.now() / 1000 : undefined,
      failed_rank: failed?.rank,
      failed_host: failed?.host,
    },
  }));
}
