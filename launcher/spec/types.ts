// A validated job spec: everything the plan needs, nothing read from the environment later.
import type { ArraySpec } from './array-spec';
import type { ParsedOptions } from '../options/registry';
import type { ParamSets } from './param-grid';
import type { SecretValue } from './secret';

export const LAUNCHERS = ['srun', 'torchrun', 'mpiexec'] as const;
export const BACKENDS = ['nccl', 'gloo', 'mpi'] as const;
export type Launcher = (typeof LAUNCHERS)[number];
export type Backend = (typeof BACKENDS)[number];

export interface ContainerSpec {
  image: string;
  binds: string[];
  /** Pass --nv (GPU libraries) to apptainer/singularity; on by default when GPUs are requested. */
  nv: boolean;
}

/** --signal: Slurm sends `name` to every rank `seconds` before the time limit (batch: to the batch shell). */
export interface PreemptSignal {
  name: string;
  seconds: number;
  batch?: boolean;
}

/** One --env: a value given (secret until handed to the job) or none (passed from the submitting shell). */
export interface EnvVar {
  name: string;
  value?: SecretValue;
}

/** The validated job: every option's parsed value under its key (../options/registry.ts), with the
 *  values validateSubmit joins from several options or the context as below, and the command. */
export interface JobSpec extends Omit<ParsedOptions, 'array' | 'paramGrid' | 'container' | 'bind' | 'nv'> {
  name: string;
  tasksPerNode: number;
  /** --gpus-per-node, else the GPUs of --gres. */
  gpusPerNode: number;
  backend: Backend;
  /** Absolute path on the shared filesystem (an array job's: each task runs in runDir/task-<N>). */
  runDir: string;
  /** --array, or one task per --param-grid line: one run directory per task. */
  array?: ArraySpec;
  /** --param-grid: task N's parameters are paramGrid.sets[N] (logged as params), raw[N] as the
   *  file gave them (the task's params.json). */
  paramGrid?: ParamSets & { file: string };
  container?: ContainerSpec;
  command: string[];
  /** When `stage` is a shard directory: what each node copies (the CLI fills it in from its manifest). */
  stagePlan?: StagePlan;
}

/** Per-node staging of a shard directory (data/stage-plan.ts makes it; the plan shows it and passes dataDir). */
export interface StagePlan {
  /** The series files' directory on the shared filesystem; each node copies its ranks' files from it. */
  dataDir?: string;
  nodes: Array<{ node: number; ranks: number[]; files: number; bytes: number }>;
  /** Every rank on one machine (the local executor). */
  all: { files: number; bytes: number };
}

export const worldSize = (s: Pick<JobSpec, 'nodes' | 'tasksPerNode'>): number => s.nodes * s.tasksPerNode;
