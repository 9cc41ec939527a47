// The launcher's public API: plan a job from its spec, run it with an executor (Slurm or local),
// follow it, read the cluster. What the CLI calls; it meets the other parts only in core/.

export { BACKENDS, LAUNCHERS, worldSize } from './spec/types';
export { validateSubmit, type RawSubmitOptions } from './spec/validate';
export { SUBMIT_OPTIONS } from './options/registry';
export { flagName, type FlagDecl } from './options/types';
export { makePlan, type SubmitPlan } from './plan/plan';
export { ranksDone, ranksExitStatus, trackerProgram } from './plan/in-allocation';
export { chooseExecutor, executorFor, executorForRunDir } from './executors/executor';
export type { Executor, SubmittedJob } from './executors/executor';
export { fetchClusterFacts } from './cluster/fetch';
export { watchJob } from './watch/watch-job';
export type { WatchOptions, WatchProgress } from './watch/watch-job';
export { runJob } from './run/run-job';
export type { RunJobEvent, RunJobOptions, RunJobResult } from './run/run-job';
export { formatCluster, selectPartitions } from './cluster/format';
export { preflightCheck } from './cluster/preflight';
export {
  accountingEfficiency,
  formatAccountingEfficiency,
  formatEfficiency,
  readAccountingEfficiency,
  readEfficiency,
} from './cluster/efficiency';
export { MAX_GRID_BYTES } from './spec/param-grid';
export { parseArraySpec, type ArraySpec } from './spec/array-spec';
/** A value as one shell word: commands printed for the user to paste. */
export { quote as shellQuote } from './shell/quote';
export * from './doctor';
