// Watch a submitted job until it ends: poll Slurm, show progress, record the final state.
import { readRankFacts, firstFailedRank } from '../rundir/rank-facts';
import { updateJobRecord } from '../rundir/job-record';
import { JobRecord } from '../rundir/layout';
import { SlurmClient } from '../slurm/client';
import { JobStatus } from '../slurm/job-status';
import { isTerminal } from '../slurm/states';

export interface FollowProgress {
  status: JobStatus;
  ranksStarted: number;
  worldSize: number;
  elapsedS: number;
}

export interface FollowOptions {
  pollMs: number;
  onProgress: (p: FollowProgress) => void;
  sleep?: (ms: number) => Promise<void>;
  /** Give up after this long with the job still running (undefined: wait forever). */
  timeoutMs?: number;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function followSlurmJob(
  jobId: string,
  runDir: string,
  worldSize: number,
  slurm: SlurmClient,
  opts: FollowOptions,
): Promise<JobRecord> {
  const sleep = opts.sleep ?? defaultSleep;
  const start = Date.now();
  for (;;) {
    const status = await slurm.status(jobId);
    const facts = readRankFacts(runDir);
    opts.onProgress({ status, ranksStarted: facts.length, worldSize, elapsedS: (Date.now() - start) / 1000 });
    if (isTerminal(status.state)) return recordFinalState(runDir, status);
    if (opts.timeoutMs !== undefined && Date.now() - start > opts.timeoutMs) return recordState(runDir, status);
    await sleep(opts.pollMs);
  }
}

export function recordState(runDir: string, status: JobStatus, ended = false): JobRecord {
  const failed = firstFailedRank(readRankFacts(runDir));
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

export const recordFinalState = (runDir: string, status: JobStatus): JobRecord => recordState(runDir, status, true);
