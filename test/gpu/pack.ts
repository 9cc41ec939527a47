// The GPU check's first part, here (test/gpu/README.md): a 1-node local job rendered by the one planner
// and run-directory preparation `submit` uses, nothing started, packed into one folder that travels to
// the GPU machine: run/ (job.local.sh, bin/ from sbatch/, job.json), ddp-check.py and pack.env.
import * as fs from 'fs';
import * as path from 'path';
import { planSubmission } from '../../cli/workflows/plan-submission';
import { packageRoot } from '../../core';
import { startInRunDir } from '../../launcher/executors/prepare-run-dir';

export interface PackOptions {
  /** The folder to (re)make; everything in it is replaced. */
  dir: string;
  /** nccl: one rank per GPU (--gpus-per-node); gloo: CPU ranks, the rehearsal. */
  backend: 'nccl' | 'gloo';
  ranks: number;
  /** How long ddp-check.py trains after its all-reduce. */
  seconds: number;
  /** The resource sampler's interval (--sample-interval). */
  sampleInterval: number;
}

export const DEFAULT_PACK = path.join(packageRoot(), 'test', 'gpu', '.pack');
const DDP_SCRIPT = path.join(packageRoot(), 'test', 'gpu', 'ddp-check.py');

/** Renders and prepares the job in `<dir>/run`; returns that run directory. The command is relative
 *  to the pack (on-gpu.sh runs the script from there), so the pack runs wherever it is copied. */
export async function pack(o: PackOptions): Promise<string> {
  fs.rmSync(o.dir, { recursive: true, force: true });
  fs.mkdirSync(o.dir, { recursive: true, mode: 0o700 });
  fs.copyFileSync(DDP_SCRIPT, path.join(o.dir, 'ddp-check.py'));
  const runDir = path.join(o.dir, 'run');
  const perNode = o.backend === 'nccl' ? { gpusPerNode: String(o.ranks) } : { tasksPerNode: String(o.ranks) };
  const { plan } = await planSubmission(
    {
      executor: 'local',
      check: false, // ddp-check.py is found from the pack, not from here
      name: 'gpu-check',
      runDir,
      backend: o.backend,
      ...perNode,
      sampleInterval: String(o.sampleInterval),
      metricsFormat: 'jsonl',
    },
    ['python3', 'ddp-check.py', String(o.seconds)],
  );
  await startInRunDir(plan, 'local', new Date(), async () => undefined);
  fs.writeFileSync(path.join(o.dir, 'pack.env'), `backend=${o.backend}\nranks=${o.ranks}\n`);
  return runDir;
}
