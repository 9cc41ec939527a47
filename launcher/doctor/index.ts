// doctor's checks that belong to the launcher: Slurm on the login node, and the shared run directory.
export type { DoctorCheck, Verdict } from './check';
export { ok, warn, fail, failFrom } from './check';
export { slurmChecks } from './slurm-checks';
export { probeSharedDir } from './probe-job';
export { healthUrl, type TrackerProbe } from './probe-plan';
export type { ProbeOptions } from './probe-job';
