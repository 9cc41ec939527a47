// Control for issue #2: the usual recipe (MASTER_ADDR = first host name of the allocation) fails on
// this cluster, because node names do not resolve. srun.test.ts is the positive counterpart: with
// track-launch's file-based discovery the same torch job completes.
import * as fs from 'fs';
import * as path from 'path';
import {
  PYTHON,
  clusterEnv,
  requireCluster,
  scontrolState,
  slurm,
  cancelJobs,
  tmpDir,
  waitFor,
} from './cluster';

jest.setTimeout(180_000);

const PY = [
  'import datetime, os, socket',
  'import torch.distributed as dist',
  'dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=8))',
  'print(f"rank {dist.get_rank()} on {socket.gethostname()} joined", flush=True)',
  'dist.destroy_process_group()',
].join('\n');

describe('control: a plain sbatch script with MASTER_ADDR from the node list', () => {
  const env = clusterEnv();
  const jobs: string[] = [];
  beforeAll(() => requireCluster());
  afterAll(() => cancelJobs(jobs, env));

  it('does not complete: the master host name does not resolve', async () => {
    const dir = tmpDir('naive');
    const pyFile = path.join(dir, 'init.py');
    fs.writeFileSync(pyFile, PY + '\n');
    const script = path.join(dir, 'naive.sbatch');
    const out = path.join(dir, 'naive.out');
    fs.writeFileSync(
      script,
      [
        '#!/bin/bash',
        '#SBATCH --nodes=3',
        '#SBATCH --ntasks-per-node=1',
        '#SBATCH --job-name=tl-it-naive',
        'set -euo pipefail',
        'MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)',
        'export MASTER_ADDR MASTER_PORT=29533',
        'echo "naive MASTER_ADDR=$MASTER_ADDR"',
        `srun bash -c 'RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS exec ${PYTHON} ${pyFile}'`,
        '',
      ].join('\n'),
    );
    const sb = slurm(['sbatch', '--parsable', `--output=${out}`, script], env, dir);
    expect({ code: sb.code, stderr: sb.stderr }).toEqual({ code: 0, stderr: '' });
    const jobId = sb.stdout.trim().split(';')[0];
    expect(jobId).toMatch(/^\d+$/);
    jobs.push(jobId);

    const state = await waitFor(
      `job ${jobId} to end`,
      () => {
        const s = scontrolState(jobId, env);
        return s && !['PENDING', 'CONFIGURING', 'RUNNING', 'COMPLETING', 'SUSPENDED'].includes(s)
          ? s
          : undefined;
      },
      120_000,
      500,
    );
    const text = fs.readFileSync(out, 'utf8');
    expect({ state, text }).toMatchObject({ state: 'FAILED' });
    expect(text).toContain('naive MASTER_ADDR=tlnode1');
    expect(text).toMatch(/name resolution/i);
    expect(text).not.toMatch(/rank \d on tlnode\d joined/);
  });
});
