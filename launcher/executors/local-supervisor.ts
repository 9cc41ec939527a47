// The local executor's job: a detached process that runs job.local.sh (all ranks on this machine),
// records RUNNING and the final state in job.json, and stops the ranks on SIGTERM (`cancel`). Nothing
// of the job outlives it: SIGKILL after the grace period, and a watchdog if it is itself killed.
import { spawn } from 'child_process';
import { constants } from 'os';
import { firstFailedRank, isFinal, JobStateName, openAppend, readAllRankFacts } from '../../core';
import { readJobRecord, runPaths, updateJobRecord } from '../../core';
import { startWatchdog } from './group-watchdog';
import { killGraceMs, processRef, ProcessRef, signalJobGroup } from './local-processes';
import { stopJobGroup, withLocalState } from './local-processes';

const POLL_MS = 200;

export function runSupervisor(runDir: string, scriptPath: string, jobId: string, graceMs: number): void {
  // Handlers first: a cancel that arrives from here on is never lost (one before this kills us
  // before any rank exists, and `cancel` then records the job CANCELLED itself).
  let cancelled = false;
  // eslint-disable-next-line prefer-const -- assigned once below, but `stop` (installed first) reads it
  let group: ProcessRef | undefined;
  const stop = () => {
    cancelled = true;
    // The script's whole process group: the script (which stops its ranks), each rank's
    // bootstrap and the user's processes, also those not yet under a bootstrap's signal trap.
    if (group) void stopJobGroup(group, graceMs);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  // Cancelled before we started (by `cancel`, which found us PENDING): run nothing.
  if (isFinal(readJobRecord(runDir))) process.exit(0);

  const p = runPaths(runDir);
  const out = openAppend(p.root, p.jobOutput);
  const child = spawn('bash', [scriptPath], {
    detached: true, // its own process group (pgid = its pid), which a cancel signals as a whole
    stdio: ['ignore', out, out],
    env: { ...process.env, TRACK_LAUNCH_JOB_ID: jobId },
  });
  group = child.pid ? processRef(child.pid) : undefined;
  const watchdog = group ? startWatchdog(group.pid, graceMs) : undefined;
  const self = processRef(process.pid);
  updateJobRecord(runDir, (r) =>
    withLocalState(r, {
      name: 'RUNNING',
      started_at: Date.now() / 1000,
      supervisor_pid: process.pid,
      ...(self ? { supervisor_start: self.start } : {}),
      ...(group ? { pgid: group.pid, pgid_start: group.start } : {}),
    }),
  );

  // Like srun --kill-on-bad-exit: the script sends SIGTERM to the others when a rank fails; a
  // rank that ignores it gets SIGKILL once the grace period is over.
  let failedAt: number | undefined;
  let killedAfterFailure = false;
  const watchRanks = setInterval(() => {
    if (!group || cancelled || killedAfterFailure) return;
    if (failedAt === undefined && firstFailedRank(readAllRankFacts(runDir))) failedAt = Date.now();
    if (failedAt !== undefined && Date.now() - failedAt >= graceMs) {
      killedAfterFailure = true;
      signalJobGroup(group, 'SIGKILL');
    }
  }, POLL_MS);

  const finish = async (code: number | null, signal: NodeJS.Signals | null) => {
    clearInterval(watchRanks);
    // Whatever of the group outlives the script (a cancel, a rank's stray child) ends with it.
    if (group) await stopJobGroup(group, graceMs, !cancelled);
    watchdog?.disarm();
    const failed = firstFailedRank(readAllRankFacts(runDir));
    const name: JobStateName = cancelled ? 'CANCELLED' : code === 0 ? 'COMPLETED' : 'FAILED';
    const rc = name === 'FAILED' && failed?.exit_code ? failed.exit_code : (code ?? 128);
    updateJobRecord(runDir, (r) =>
      withLocalState(r, {
        ...r.state,
        name,
        exit_code: rc,
        signal: signal ? constants.signals[signal] : 0,
        nodes: 'localhost',
        ended_at: Date.now() / 1000,
        reason: killedAfterFailure
          ? `ranks still running ${graceMs / 1000} s after rank ${failed?.rank} failed were killed`
          : r.state?.reason,
        failed_rank: name === 'FAILED' ? failed?.rank : undefined,
        failed_host: name === 'FAILED' ? failed?.host : undefined,
      }),
    );
    process.exit(0);
  };
  child.on('exit', (code, signal) => void finish(code, signal));
}

if (require.main === module) {
  const [runDir, scriptPath, jobId, grace] = process.argv.slice(2);
  runSupervisor(runDir, scriptPath, jobId, grace === undefined ? killGraceMs() : Number(grace));
}
