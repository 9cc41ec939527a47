// Watch a submitted job until it ends: poll its executor, show progress, return the final record.
import { TrackLaunchError } from '../../core';
import { readJobRecord, updateJobRecord } from '../../core';
import { JobRecord } from '../../core';
import { firstFailedRank, readAllRankFacts } from '../../core';
import { JobStatus } from '../slurm/job-status';
import { isTerminal } from '../../core';

export interface FollowProgress {
  record: JobRecord;
  ranksStarted: number;
  elapsedS: number;
}

export interface FollowOptions {
  pollMs: number;
  onProgress: (p: FollowProgress) => void;
  sleep?: (ms: number) => Promise<void>;
  /** How long the scheduler may stay unreachable before following gives up (default 10 minutes). */
  giveUpMs?: number;
  /** Told when the scheduler cannot be asked (default: a line on stderr, once per outage). */
  onWarning?: (message: string) => void;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function followJob(
  runDir: string,
  refresh: (runDir: string) => Promise<JobRecord>,
  opts: FollowOptions,
): Promise<JobRecord> {
  const sleep = opts.sleep ?? defaultSleep;
  const warn = opts.onWarning ?? ((m: string) => process.stderr.write(`\ntrack-launch: warning: ${m}\n`));
  const start = Date.now();
  let failingSince: number | undefined;
  for (;;) {
    let record: JobRecord;
    try {
      record = await refresh(runDir);
      failingSince = undefined;
    } catch (e) {
      // slurmctld restarting or briefly unreachable must not end the follow (the job runs on);
      // only a long outage, or anything but a failed scheduler command, does.
      if (!(e instanceof TrackLaunchError) || e.code !== 'COMMAND_FAILED') throw e;
      const now = Date.now();
      if (failingSince === undefined) {
        failingSince = now;
        warn(`cannot ask the scheduler for the job state (${e.message}); still trying`);
      } else if (now - failingSince > (opts.giveUpMs ?? 600_000)) throw e;
      record = readJobRecord(runDir);
    }
    opts.onProgress({
      record,
      ranksStarted: readAllRankFacts(runDir).length,
      elapsedS: (Date.now() - start) / 1000,
    });
    if (record.state && isTerminal(record.state.name)) return record;
    await sleep(opts.pollMs);
  }
}

/** Record a Slurm status in job.json, with the rank that failed first (from the ranks' facts). */
export function recordState(runDir: string, status: JobStatus, ended = false): JobRecord {
  const failed = firstFailedRank(readAllRankFacts(runDir), status.state);
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
