// doctor's checks in order; each group is handed on as soon as it is known (the probe job takes seconds).
import type { DoctorCheck, ProbeOptions } from '../../launcher';
import { chooseExecutor, healthUrl, probeSharedDir, slurmChecks, trackerProgram, warn } from '../../launcher';
import { tracking } from '../lazy';
import { installCheck, nodeCheck, rendererCheck } from './login-node';
import { mlflowChecks } from './mlflow-checks';

/** `job` false (--no-job): the shared-filesystem probe is skipped. */
export async function runDoctor(
  o: { job: boolean; executor?: string; probe: ProbeOptions },
  onChecks: (c: DoctorCheck[]) => void,
): Promise<DoctorCheck[]> {
  const env = process.env;
  const all: DoctorCheck[] = [];
  const add = (c: DoctorCheck[]) => {
    all.push(...c);
    onChecks(c);
  };
  add([nodeCheck(), installCheck()]);
  add(rendererCheck(env));
  const executor = chooseExecutor(o.executor, () => undefined, env); // the Slurm check says why
  if (executor === 'slurm') add((await slurmChecks(undefined, env)).checks);
  if (!o.job) add([warn('run-dir', `not checked (--no-job): whether compute nodes share ${o.probe.parent}`)]);
  else if (executor === 'local')
    add([
      warn('run-dir', 'local executor: not a cluster, so no compute node needs to see the run directory'),
    ]);
  else add(await probeSharedDir({ ...o.probe, ...trackerProbe(env) }));
  add(await mlflowChecks(env));
  return all;
}

/** With an http(s) tracking URI, the probe job also checks what `submit --track job` needs on a node. */
function trackerProbe(env: NodeJS.ProcessEnv): Pick<ProbeOptions, 'tracker'> {
  const uri = tracking().trackingUri(undefined, env);
  const url = uri ? healthUrl(uri) : undefined;
  return url ? { tracker: { ...trackerProgram(), healthUrl: url } } : {};
}
