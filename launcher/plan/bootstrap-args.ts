// JobSpec -> the arguments of sbatch/rank-bootstrap.sh (pure): the rank's mode, the run directory and
// the rendezvous file, then each declared option's arguments in their slots (../options/registry.ts).
import { submitOptionEntries } from '../options/registry';
import { JobSpec } from '../spec/types';

/** The flags written here rather than by an option declaration. */
export const BOOTSTRAP_HEAD_FLAGS = ['--launcher', '--run-dir', '--rdzv-file'] as const;

/** `mode`: the --launcher of the bootstrap: the spec's launcher, or 'local' for the local executor. */
export function bootstrapArgs(spec: JobSpec, mode: string = spec.launcher): string[] {
  const head = [`--launcher ${mode}`, '--run-dir "$run_dir"', '--rdzv-file "$rdzv_file"'];
  const declared = submitOptionEntries()
    .flatMap(([, decl]) => (decl.bootstrap ? [decl.bootstrap] : []))
    .sort((a, b) => a.slot - b.slot);
  return [...head, ...declared.flatMap((b) => b.args(spec))];
}
