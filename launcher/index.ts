// The launcher's public API: plan a job from its spec, run it with an executor (Slurm or local),
// follow it, read the cluster. What the CLI calls; it meets the other parts only in core/.

export { BACKENDS } from './spec/types';
export { LAUNCHERS } from './spec/types';
export type { RawSubmitOptions } from './spec/validate';
export { SUBMIT_OPTIONS } from './options/registry';
export { flagName } from './options/types';
export type { FlagDecl } from './options/types';
export type { SubmitPlan } from './plan/plan';
export { chooseExecutor } from './executors/executor';
export { efficiencySummary } from './cluster/efficiency';
export { fetchClusterFacts } from './cluster/fetch';
export { watchJob } from './watch/watch-job';
export type { WatchOptions, WatchProgress } from './watch/watch-job';
export { runJob } from './run/run-job';
export type { RunJobEvent, RunJobOptions, RunJobResult } from './run/run-job';
export type { Executor, SubmittedJob } from './executors/executor';
export { formatCluster } from './cluster/format';
export { makePlan } from './plan/plan';
export { executorFor } from './executors/executor';
export { executorForRunDir } from './executors/executor';
export { preflightCheck } from './cluster/preflight';
export { readEfficiency } from './cluster/efficiency';
export {
  accountingEfficiency,
  formatAccountingEfficiency,
  readAccountingEfficiency,
} from './cluster/efficiency';
export { selectPartitions } from './cluster/format';
export { validateSubmit } from './spec/validate';
export { MAX_GRID_BYTES } from './spec/param-grid';
export { parseArraySpec } from './spec/array-spec';
export type { ArraySpec } from './spec/array-spec';
export { worldSize } from './spec/types';
export * from './doctor';
