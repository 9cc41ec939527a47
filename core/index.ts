// The shared core, below launcher/, tracking-plugin/, reports/ and data/: the run-directory
// contract (docs/run-dir.md), errors, job states and resource samples. It imports nothing above it.
// core/rundir/ is the only code that builds a path into a run directory or opens a file there.
export * from './errors';
export * from './job-states';
export * from './package-info';
export * from './process';
export * from './resource-samples';
export * from './user-state';
export * from './rundir/layout';
export { FILE_MODE, DIR_MODE } from './rundir/guards';
export * from './rundir/safe-fs';
export * from './rundir/byte-io';
export * from './rundir/json';
export { check, validated, type Mismatch, type Schema } from './rundir/schema';
export * from './rundir/schemas';
export * from './rundir/job-record';
export * from './rundir/rank-facts';
export * from './rundir/logs';
export * from './rundir/resources';
export * from './rundir/tracking-files';
export * from './rundir/reports-files';
export * from './rundir/evaluation';
export * from './rundir/ownership';
export * from './rundir/create';
export * from './rundir/job-index';
export * from './rundir/array';
export * from './rundir/outside-files';
export { compileGlob, GlobPartError } from './rundir/glob';
export { storeArtifact } from './rundir/artifact-store';
