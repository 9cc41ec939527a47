// The local executor's job: a detached process that runs job.local.sh (all ranks on this
// machine), records RUNNING and the final state in job.json, and stops the ranks on SIGTERM.
// Started by `submit --executor local`; `cancel` sends it SIGTERM.
import { spawn } from 'child_process';
import * as fs from 'fs';
import { updateJobRecord } from '../rundir/job-record';
import { JobStateName, runPaths } from '../rundir/layout';
import { firstFailedRank, readRankFacts } from '../rundir/rank-facts';

export function runSupervisor(runDir: string, scriptPath: string, jobId: string): void {
  const p = runPaths(runDir);
  const out = fs.openSync(p.jobOutput, 'a');
  const child = spawn('bash', [scriptPath], {
    cwd: process.cwd(),
    detached: true, // its own process group, so a terminal's Ctrl-C reaches it only through us
    stdio: ['ignore', out, out],
    env: { ...process.env, TRACK_LAUNCH_JOB_ID: jobId },
  });
  let cancelled = false;
  const stop = () => {
    cancelled = true;
    if (child.pid) process.kill(child.pid, 'SIGTERM');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  updateJobRecord(runDir, (r) => ({
    ...r,
    state: { name: 'RUNNING', started_at: Date.now() / 1000, supervisor_pid: process.pid },
  }));
  child.on('exit', (code, signal) => {
    const rc = code ?? 128;
    const name: JobStateName = cancelled ? 'CANCELLED' : rc === 0 ? 'COMPLETED' : 'FAILED';
    const failed = firstFailedRank(readRankFacts(runDir));
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
  });
}

if (require.main === module) {
  const [runDir, scriptPath, jobId] = process.argv.slice(2);
  runSupervisor(runDir, scriptPath, jobId);
}
