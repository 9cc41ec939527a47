// Both executors prepare the run directory one way and undo it when the start fails; the local
// executor waits for a job's processes without blocking the event loop.
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readJobRecord, writeJobRecord } from '../../../core';
import { localExecutor } from '../../../launcher/executors/local';
import {
  jobGroupMembers,
  processRef,
  withLocalState,
  type ProcessRef,
} from '../../../launcher/executors/local-processes';
import { slurmExecutorWith } from '../../../launcher/executors/slurm';
import { jobRecordFor } from '../../../launcher/plan/job-record';
import { makePlan, type Executor } from '../../../launcher/plan/plan';
import { SlurmClient } from '../../../launcher/slurm/client';
import { validateSubmit } from '../../../launcher/spec/validate';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tl-executor-'));

function planIn(executor: Executor, cwd: string) {
  const runDir = path.join(tmp(), 'runs', 'job-1');
  const now = new Date('2026-12-02T10:11:12Z');
  const spec = validateSubmit({ runDir, command: ['python3', 'train.py'] }, { cwd, now });
  return { plan: makePlan(spec, { cwd, version: 't', executor }), runDir, now };
}

describe('a start that fails leaves no prepared run directory behind', () => {
  test('slurm: sbatch refuses the job', async () => {
    const sbatch = new SlurmClient(async (argv) => ({
      argv,
      code: 1,
      stdout: '',
      stderr: 'invalid partition',
    }));
    const { plan, runDir, now } = planIn('slurm', tmp());
    await expect(slurmExecutorWith(sbatch).submit(plan, now)).rejects.toThrow(/sbatch refused the job/);
    expect(fs.readdirSync(path.dirname(path.dirname(runDir)))).toEqual([]);
  });

  test('local: the supervisor cannot start', async () => {
    const { plan, runDir, now } = planIn('local', path.join(tmp(), 'removed'));
    await expect(localExecutor.submit(plan, now)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
    expect(fs.readdirSync(path.dirname(path.dirname(runDir)))).toEqual([]);
  });
});

describe('local cancel without a supervisor', () => {
  let group: ProcessRef | undefined;
  const grace = process.env.TRACK_LAUNCH_KILL_GRACE;
  afterEach(() => {
    if (group && jobGroupMembers(group).length > 0) process.kill(-group.pid, 'SIGKILL');
    if (grace === undefined) delete process.env.TRACK_LAUNCH_KILL_GRACE;
    else process.env.TRACK_LAUNCH_KILL_GRACE = grace;
  });

  test('waits out the grace period for ranks that ignore SIGTERM while timers keep firing', async () => {
    const ranks = spawn('bash', ['-c', "trap '' TERM; sleep 60 & wait"], { detached: true, stdio: 'ignore' });
    group = processRef(ranks.pid!)!;
    const deadline = Date.now() + 5_000;
    while (jobGroupMembers(group).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const { plan, runDir, now } = planIn('local', tmp());
    fs.mkdirSync(runDir, { recursive: true });
    const gone = spawnSync('true').pid; // the supervisor, killed: its pid names no process of the job
    const state = { name: 'RUNNING' as const, supervisor_pid: gone, supervisor_start: 1 };
    const record = { ...jobRecordFor(plan, 'local', now), job_id: 'local-1' };
    writeJobRecord(runDir, withLocalState(record, { ...state, pgid: group.pid, pgid_start: group.start }));
    process.env.TRACK_LAUNCH_KILL_GRACE = '0.5';
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    await localExecutor.cancel(runDir);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(10);
    expect(jobGroupMembers(group)).toEqual([]);
    expect(readJobRecord(runDir).state).toMatchObject({
      name: 'CANCELLED',
      reason: /cancel stopped its ranks/,
    });
  });
});
