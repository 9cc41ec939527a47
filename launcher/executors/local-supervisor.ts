// The local executor's job: a detached process that runs job.local.sh (all ranks on this
// machine), records RUNNING and the final state in job.json, and stops the ranks on SIGTERM.
// Started by `submit --executor local`; `cancel` sends it SIGTERM.
import { ChildProcess, spawn } from 'child_process';
import { openAppend, readJobRecord, updateJobRecord } from '../../core';
import { JobStateName, runPaths } from '../../core';
import { firstFailedRank, readAllRankFacts } from '../../core';
import { isTerminal } from '../../core';

/** After the script exits on a cancel, how long its process group may take to end before SIGKILL. */
const GRACE_MS = 5_000;

/** Whether any process of group `pgid` is still alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

export function runSupervisor(runDir: string, scriptPath: string, jobId: string): void {
  // Handlers first: a cancel that arrives from here on is never lost (one before this kills us
  // before any rank exists, and `cancel` then records the job CANCELLED itself).
  let cancelled = false;
  // eslint-disable-next-line prefer-const -- assigned once below, but `stop` (installed first) reads it
  let child: ChildProcess | undefined;
  const stop = () => {
    cancelled = true;
    // The script's whole process group: the script (which stops its ranks), each rank's
    // bootstrap and the user's processes, also those not yet under a bootstrap's signal trap.
    if (child?.pid) signalGroup(child.pid, 'SIGTERM');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  // Cancelled before we started (by `cancel`, which found us PENDING): run nothing.
  const before = readJobRecord(runDir).state;
  if (before && isTerminal(before.name)) process.exit(0);

  const p = runPaths(runDir);
  const out = openAppend(p.root, p.jobOutput);
  child = spawn('bash', [scriptPath], {
    cwd: process.cwd(),
    detached: true, // its own process group (pgid = its pid), which a cancel signals as a whole
    stdio: ['ignore', out, out],
    env: { ...process.env, TRACK_LAUNCH_JOB_ID: jobId },
  });
  const pgid = child.pid;
  updateJobRecord(runDir, (r) => ({
    ...r,
    state: { name: 'RUNNING', started_at: Date.now() / 1000, supervisor_pid: process.pid },
  }));
  const finish = async (code: number | null, signal: NodeJS.Signals | null) => {
    // On a cancel nothing of the job may outlive it: a rank that ignores SIGTERM gets SIGKILL.
    if (cancelled && pgid) {
      const deadline = Date.now() + GRACE_MS;
      while (groupAlive(pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (groupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
    }
    const rc = code ?? 128;
    const name: JobStateName = cancelled ? 'CANCELLED' : rc === 0 ? 'COMPLETED' : 'FAILED';
    const failed = firstFailedRank(readAllRankFacts(runDir));
    updateJobRecord(runDir, (r) => ({
      ...r,
      state: {
        name,
        exit_code: rc,
        signal: signal ? 15 : 0,
        nodes: 'localhost',
        started_at: r.state?.started_at,
        ended_at: Date.now() / 1000,
        failed_rank: name === 'FAILED' ? failed?.rank : undefined,
        failed_host: name === 'FAILED' ? failed?.host : undefined,
      },
    }));
    process.exit(0);
  };
  child.on('exit', (code, signal) => void finish(code, signal));
}

if (require.main === module) {
  const [runDir, scriptPath, jobId] = process.argv.slice(2);
  runSupervisor(runDir, scriptPath, jobId);
}
