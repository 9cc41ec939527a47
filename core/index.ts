// The shared core, below launcher/, tracking-plugin/, reports/ and data/: the run-directory
// contract (docs/run-dir.md), errors, job states and resource samples. It imports nothing above it.
export * from './errors';
export * from './job-states';
export * from './package-info';
export * from './resource-samples';
export * from './rundir/layout';
export * from './rundir/job-record';
export * from './rundir/json-file';
export * from './rundir/rank-facts';
export * from './rundir/job-index';
export * from './rundir/read';
