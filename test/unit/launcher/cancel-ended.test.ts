// `cancel` of a Slurm job that has ended says its state and fails (NOT_FOUND, exit 3), as the local
// executor does: whether job.json or Slurm knows it ended, or scancel finds it ended meanwhile.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EXIT_CODES, readJobRecord, writeJobRecord } from '../../../core';
import { localExecutor } from '../../../launcher/executors/local';
import { slurmExecutorWith } from '../../../launcher/executors/slurm';
import { jobRecordFor } from '../../../launcher/plan/job-record';
import { makePlan } from '../../../launcher/plan/plan';
import { SlurmClient } from '../../../launcher/slurm/client';
import type { ProcessResult } from '../../../launcher/slurm/run-process';
import { validateSubmit } from '../../../launcher/spec/validate';

const scontrol = (state: string) =>
  `JobId=4242 JobName=t JobState=${state} Reason=None Restarts=0 ExitCode=0:0 NodeList=tlnode1 NumNodes=1\n`;
// What Slurm 22.05's scancel prints for a job that has ended; it exits 0.
const SCANCEL_ENDED =
  'scancel: error: Kill job error on job id 4242: Job/step already completing or completed\n';

function runDirWith(executor: 'slurm' | 'local', state: string): string {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-cancel-'));
  const runDir = path.join(cwd, 'run');
  const spec = validateSubmit({ runDir, command: ['python3', 'train.py'] }, { cwd, now: new Date() });
  const rec = jobRecordFor(makePlan(spec, { cwd, version: 't', executor }), executor, new Date());
  fs.mkdirSync(runDir, { recursive: true, mode: 0o700 });
  writeJobRecord(runDir, { ...rec, job_id: '4242', state: { name: state as 'RUNNING' } });
  return runDir;
}

/** A Slurm whose scontrol answers `states` in turn, and whose scancel prints `scancel`. */
function slurm(states: string[], scancel = '') {
  const calls: string[] = [];
  const client = new SlurmClient(async (argv): Promise<ProcessResult> => {
    calls.push(argv[0]);
    if (argv[0] === 'scontrol')
      return { argv, code: 0, stdout: scontrol(states.shift() ?? 'COMPLETED'), stderr: '' };
    if (argv[0] === 'scancel') return { argv, code: 0, stdout: '', stderr: scancel };
    throw new Error(`unexpected ${argv.join(' ')}`);
  });
  return { executor: slurmExecutorWith(client), calls };
}

const endedIn = (state: string) =>
  expect.objectContaining({ code: 'NOT_FOUND', message: `job 4242 is not running (state ${state})` });

describe('cancel of a job that has ended', () => {
  test('slurm: Slurm says COMPLETED: no scancel, the state said, exit 3', async () => {
    const runDir = runDirWith('slurm', 'RUNNING');
    const { executor, calls } = slurm(['COMPLETED']);
    const err = await executor.cancel(runDir).catch((e: unknown) => e);
    expect(err).toEqual(endedIn('COMPLETED'));
    expect(EXIT_CODES[(err as { code: 'NOT_FOUND' }).code]).toBe(3);
    expect(calls).not.toContain('scancel');
    expect(readJobRecord(runDir).state?.name).toBe('COMPLETED');
  });

  test('slurm: already final in job.json: neither Slurm nor scancel asked', async () => {
    const runDir = runDirWith('slurm', 'FAILED');
    const { executor, calls } = slurm([]);
    await expect(executor.cancel(runDir, 'USR1')).rejects.toEqual(endedIn('FAILED'));
    expect(calls).toEqual([]);
  });

  test('slurm: it ends between the look and scancel: scancel says so, the new state is said', async () => {
    const runDir = runDirWith('slurm', 'RUNNING');
    const { executor, calls } = slurm(['RUNNING', 'COMPLETED'], SCANCEL_ENDED);
    await expect(executor.cancel(runDir)).rejects.toEqual(endedIn('COMPLETED'));
    expect(calls).toEqual(['scontrol', 'scancel', 'scontrol']);
  });

  test('slurm: a running job is cancelled', async () => {
    const runDir = runDirWith('slurm', 'RUNNING');
    const { executor, calls } = slurm(['RUNNING']);
    await expect(executor.cancel(runDir)).resolves.toBeUndefined();
    expect(calls).toEqual(['scontrol', 'scancel']);
  });

  test('local: the same message', async () => {
    const runDir = runDirWith('local', 'COMPLETED');
    await expect(localExecutor.cancel(runDir)).rejects.toEqual(endedIn('COMPLETED'));
  });
});
