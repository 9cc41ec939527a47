// doctor's checks in order; each group is handed on as soon as it is known (the probe job takes seconds).
import type { DoctorCheck } from '../../launcher';
import { chooseExecutor, probeSharedDir, slurmChecks, warn } from '../../launcher';
import { canvasCheck, nodeCheck } from './login-node';
import { mlflowChecks } from './mlflow-checks';

export interface DoctorOptions {
  /** Where run directories go; the probe writes into a temporary directory inside it. */
  runDirParent: string;
  /** false: --no-job, the shared-filesystem probe is skipped. */
  job: boolean;
  timeoutS: number;
  executor?: string;
  partition?: string;
  account?: string;
  qos?: string;
  env?: NodeJS.ProcessEnv;
}

export async function runDoctor(
  o: DoctorOptions,
  onChecks: (c: DoctorCheck[]) => void,
): Promise<DoctorCheck[]> {
  const env = o.env ?? process.env;
  const all: DoctorCheck[] = [];
  const add = (c: DoctorCheck[]) => {
    all.push(...c);
    onChecks(c);
  };
  add([nodeCheck()]);
  add(canvasCheck(env));
  const executor = chooseExecutor(o.executor, () => undefined, env); // the Slurm check says why
  if (executor === 'slurm') add((await slurmChecks(undefined, env)).checks);
  if (!o.job) add([warn('run-dir', `not checked (--no-job): whether compute nodes share ${o.runDirParent}`)]);
  else if (executor === 'local')
    add([
      warn('run-dir', 'local executor: not a cluster, so no compute node needs to see the run directory'),
    ]);
  else
    add([
      await probeSharedDir({
        parent: o.runDirParent,
        timeoutS: o.timeoutS,
        partition: o.partition,
        account: o.account,
        qos: o.qos,
      }),
    ]);
  add(await mlflowChecks(env));
  return all;
}
