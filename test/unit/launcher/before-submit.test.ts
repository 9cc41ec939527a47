// runJob's beforeSubmit (submit --mlflow-env makes the job's runs there): called on the prepared
// run directory before sbatch; when it fails, sbatch is never run and the run directory is gone;
// when sbatch then refuses the job, what it returned undoes its work (the runs are ended).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runPaths } from '../../../core';
import { slurmExecutorWith } from '../../../launcher/executors/slurm';
import { makePlan } from '../../../launcher/plan/plan';
import { runJob } from '../../../launcher/run/run-job';
import { SlurmClient } from '../../../launcher/slurm/client';
import type { ProcessRunner } from '../../../launcher/slurm/run-process';
import { spec } from './specs';

function setUp(sbatch = { code: 0, stdout: '4242\n', stderr: '' }) {
  const runDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-before-')), 'run');
  const calls: string[] = [];
  const run: ProcessRunner = async (argv) => {
    calls.push(argv[0]);
    return { argv, ...sbatch };
  };
  const plan = makePlan(spec({ nodes: 2, runDir, command: ['python3', 'train.py'] }), {
    cwd: '/w',
    version: 't',
  });
  return { runDir, calls, plan, executor: slurmExecutorWith(new SlurmClient(run)) };
}

test('called with the prepared run directory, before sbatch', async () => {
  const { runDir, calls, plan, executor } = setUp();
  const r = await runJob(plan, {
    executor,
    beforeSubmit: async (dir) => {
      calls.push(`before ${dir === runDir} ${fs.existsSync(runPaths(dir).jobJson)}`);
    },
  });
  expect(r.jobId).toBe('4242');
  expect(calls).toEqual(['before true true', 'sbatch']);
});

test("its failure is the submit's: nothing submitted, the run directory removed", async () => {
  const { runDir, calls, plan, executor } = setUp();
  const failed = new Error('the server is away');
  await expect(
    runJob(plan, {
      executor,
      beforeSubmit: async () => {
        throw failed;
      },
    }),
  ).rejects.toBe(failed);
  expect(calls).toEqual([]);
  expect(fs.existsSync(runDir)).toBe(false);
});

test("sbatch refuses the job: beforeSubmit's work is undone; an undo that fails is said with the refusal", async () => {
  const refused = { code: 1, stdout: '', stderr: 'sbatch: error: invalid partition specified: nope' };
  const first = setUp(refused);
  const undone: string[] = [];
  const undoing = async () => {
    undone.push('undo');
  };
  await expect(
    runJob(first.plan, { executor: first.executor, beforeSubmit: async () => undoing }),
  ).rejects.toThrow(/sbatch refused the job/);
  expect([first.calls, undone, fs.existsSync(first.runDir)]).toEqual([['sbatch'], ['undo'], false]);

  const second = setUp(refused);
  const failing = async () => {
    throw new Error('2 of the 3 MLflow runs made for the job could not be ended');
  };
  const err = await runJob(second.plan, {
    executor: second.executor,
    beforeSubmit: async () => failing,
  }).catch((e: Error) => e);
  expect(err).toMatchObject({ code: 'COMMAND_FAILED' });
  expect((err as Error).message).toMatch(/sbatch refused the job.*; also: 2 of the 3 MLflow runs/s);
  expect(fs.existsSync(second.runDir)).toBe(false);
});
