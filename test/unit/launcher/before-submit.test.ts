// runJob's beforeSubmit (submit --mlflow-env makes the job's runs there): called on the prepared
// run directory before sbatch; when it fails, sbatch is never run and the run directory is gone.
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

function setUp() {
  const runDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-before-')), 'run');
  const calls: string[] = [];
  const run: ProcessRunner = async (argv) => {
    calls.push(argv[0]);
    return { argv, code: 0, stdout: '4242\n', stderr: '' };
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
