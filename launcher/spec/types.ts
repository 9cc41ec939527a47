// A validated job spec: everything the plan needs, nothing read from the environment later.
import type { ArraySpec } from './array-spec';
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

/** One --env: a value given (secret until handed to the job) or none (passed from the submitting shell). */
export interface EnvVar {
  name: string;
  value?: SecretValue;
}

export interface JobSpec {
  name: string;
  nodes: number;
  tasksPerNode: number;
  gpusPerNode: number;
  cpusPerTask?: number;
  mem?: string;
  time?: string;
  partition?: string;
  account?: string;
  qos?: string;
  constraint?: string;
  exclusive: boolean;
  /** sbatch --gres as given, e.g. gpu:a100:4 (its GPUs are gpusPerNode). */
  gres?: string;
  /** Slurm host lists: run on / never on these nodes. */
  nodelist?: string;
  exclude?: string;
  reservation?: string;
  dependency?: string;
  /** Absolute path on the shared filesystem (an array job's: each task runs in runDir/task-<N>). */
  runDir: string;
  /** --array: an array job, one run directory per task. */
  array?: ArraySpec;
  /** --param-grid: task N's parameters are paramGrid.sets[N] (logged as params), raw[N] as the
   *  file gave them (the task's params.json). */
  paramGrid?: {
    file: string;
    sets: Array<Record<string, string>>;
    raw: Array<Record<string, string | number | boolean>>;
  };
  modules: string[];
  container?: ContainerSpec;
  env: EnvVar[];
  /** Files the job writes, attached to the MLflow parent run at the end (paths or globs as given). */
  artifacts: string[];
  /** More sbatch options, each read as sbatch reads it and written in full, e.g. "--mail-type=END". */
  sbatchOptions: string[];
  launcher: Launcher;
  backend: Backend;
  masterIface?: string;
  masterCidr?: string;
  rendezvousTimeout: number;
  command: string[];
  /** A file or directory copied to node-local storage before the ranks start (TRACK_LAUNCH_DATA_DIR). */
  stage?: string;
  /** When `stage` is a shard directory: what each node copies (the CLI fills it in from its manifest). */
  stagePlan?: StagePlan;
  /** Preemption warning: Slurm sends `name` to every rank `seconds` before the time limit. */
  signal?: { name: string; seconds: number; batch?: boolean };
  /** Requeue the job when the preemption signal arrives (after the ranks exit). */
  requeue: boolean;
  /** Seconds between resource samples on each node; 0 turns sampling off. */
  sampleInterval: number;
  // Tracking settings, recorded in job.json for the tracking plugin.
  experiment?: string;
  metricsFormat?: string;
  params: Record<string, string>;
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
