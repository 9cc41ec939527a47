// A validated job spec: everything the plan needs, nothing read from the environment later.

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
  /** Absolute path on the shared filesystem. */
  runDir: string;
  modules: string[];
  container?: ContainerSpec;
  env: Array<[string, string]>;
  /** Raw sbatch options passed through as given, e.g. "--mail-type=END". */
  sbatchOptions: string[];
  launcher: Launcher;
  backend: Backend;
  masterIface?: string;
  masterCidr?: string;
  rendezvousTimeout: number;
  command: string[];
  /** A file or directory copied to node-local storage before the ranks start (TRACK_LAUNCH_DATA_DIR). */
  stage?: string;
  /** Preemption warning: Slurm sends `name` to every rank `seconds` before the time limit. */
  signal?: { name: string; seconds: number };
  /** Requeue the job when the preemption signal arrives (after the ranks exit). */
  requeue: boolean;
  /** Seconds between resource samples on each node; 0 turns sampling off. */
  sampleInterval: number;
  // Tracking settings, recorded in job.json for the tracking plugin.
  experiment?: string;
  metricsFormat?: string;
  params: Record<string, string>;
}

export const worldSize = (s: Pick<JobSpec, 'nodes' | 'tasksPerNode'>): number => s.nodes * s.tasksPerNode;
