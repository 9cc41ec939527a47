// The run directory is the only interface between launcher, tracking-plugin and reports.
// docs/run-dir.md describes it for people; this file is the same contract for code.
import { createHash } from 'crypto';
import * as path from 'path';
import type { JobStateName } from '../job-states';

export const RUN_DIR_VERSION = 1;

export const runPaths = (runDir: string) => ({
  root: runDir,
  jobJson: path.join(runDir, 'job.json'),
  script: path.join(runDir, 'job.sbatch'),
  binDir: path.join(runDir, 'bin'),
  bootstrap: path.join(runDir, 'bin', 'rank-bootstrap.sh'),
  rendezvousDir: path.join(runDir, 'rendezvous'),
  logsDir: path.join(runDir, 'logs'),
  /** Slurm's own output of the batch script (all ranks' lines interleaved). */
  jobOutput: path.join(runDir, 'logs', 'job.out'),
  /** The in-allocation tracker's output (submit --track job). */
  trackerOut: path.join(runDir, 'logs', 'tracker.out'),
  /** The ranks' step's exit status, written by the batch script for the in-allocation tracker. */
  ranksDone: path.join(runDir, 'logs', 'ranks.done'),
  rankOut: (rank: number) => path.join(runDir, 'logs', `rank-${rank}.out`),
  rankErr: (rank: number) => path.join(runDir, 'logs', `rank-${rank}.err`),
  /** One line per line of rank-R.out: the Unix time (seconds, microseconds) the line was written. */
  rankOutTimes: (rank: number) => path.join(runDir, 'logs', `rank-${rank}.out.ts`),
  rankErrTimes: (rank: number) => path.join(runDir, 'logs', `rank-${rank}.err.ts`),
  /** Facts a rank's bootstrap recorded: host, ip, ranks, master, start and end. */
  rankFacts: (rank: number) => path.join(runDir, 'logs', `rank-${rank}.json`),
  /** One JSON line per resource sample of a node (docs/cluster.md). */
  nodeResources: (host: string) => path.join(runDir, 'logs', `node-${host}.resources.jsonl`),
  evalDir: path.join(runDir, 'eval'),
  evaluation: path.join(runDir, 'eval', 'evaluation.json'),
  trackingDir: path.join(runDir, 'tracking'),
  reportsDir: path.join(runDir, 'reports'),
  /** An array job's task N runs in its own run directory below the array's (docs/run-dir.md). */
  taskDir: (task: number) => path.join(runDir, `task-${task}`),
  /** --param-grid: the task's parameter set, one JSON object (TRACK_LAUNCH_PARAMS_FILE on the ranks). */
  params: path.join(runDir, 'params.json'),
});

/** tracking/: what ingestion keeps (docs/tracking.md). */
export const trackingPaths = (runDir: string) => {
  const dir = path.join(runDir, 'tracking');
  return {
    dir,
    /** One ingester at a time: pid and host of the holder. */
    lock: path.join(dir, 'lock'),
    /** The tracker that holds the lock: where it runs, when it last sent, what it could not deliver. */
    tracker: path.join(dir, 'tracker.json'),
    /** submit --mlflow-env: the tracking URI, the experiment id and each rank's run id, one per
     *  line (tab-separated), which each rank's bootstrap exports as MLflow's own variables. */
    mlflowEnv: path.join(dir, 'mlflow-env.tsv'),
    /** The output of the follower that `submit` starts on the login node. */
    followerLog: path.join(dir, 'follower.log'),
    /** The spool: per rank, bytes read and spooled, step counters. */
    spoolState: path.join(dir, 'state.json'),
    spoolDir: path.join(dir, 'spool'),
    rankSpool: (rank: number | string) => path.join(dir, 'spool', `rank-${rank}.jsonl`),
    /** Kept apart from rank-R.jsonl so system metrics never feed the parent's per-step aggregates. */
    systemSpool: (rank: number | string) => path.join(dir, 'spool', `rank-${rank}.system.jsonl`),
    /** A node's resource samples for the parent run, once per node (host from a logs/ file name). */
    nodeSystemSpool: (host: string) => path.join(dir, 'spool', `node-${host}.system.jsonl`),
    parentSpool: path.join(dir, 'spool', 'parent.jsonl'),
    /** The send, per tracking server (serverKey: every alias of it, with or without credentials):
     *  run ids and bytes of each spool sent. */
    sendState: (uri: string) => path.join(dir, `mlflow-${uriHash(uri)}.json`),
  };
};

/** The file names of tracking/ that hold a server's stage-2 state (mlflow-<uri hash>.json). */
export const REMOTE_STATE_FILE = /^mlflow-[0-9a-f]+\.json$/;

/** A tracking server's identity, so that every alias of it shares one stage-2 state: scheme and
 *  host lower-cased, the default port made explicit, no user info (credentials come and go), no
 *  trailing slash, no fragment; the path and query kept (a prefix is another server). A string that
 *  is not a URL is only stripped of trailing slashes. */
export function serverKey(uri: string): string {
  let u: URL;
  try {
    u = new URL(uri.trim());
  } catch {
    return uri.replace(/\/+$/, '');
  }
  const port = u.port || DEFAULT_PORTS[u.protocol] || '';
  const where = port === '' ? u.hostname.toLowerCase() : `${u.hostname.toLowerCase()}:${port}`;
  return `${u.protocol}//${where}${u.pathname.replace(/\/+$/, '')}${u.search}`;
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

export const uriHash = (uri: string) =>
  createHash('sha256').update(serverKey(uri)).digest('hex').slice(0, 12);

/** logs/rank-<R>.json, written by sbatch/rank-bootstrap.sh when the rank starts and again when it ends. */
export interface RankFacts {
  version: 1;
  rank: number;
  local_rank: number;
  node_rank: number;
  world_size: number;
  local_world_size: number;
  host: string;
  ip: string;
  iface: string;
  master_addr: string;
  master_port: number;
  /** The rendezvous file this rank read the master from (none under `--backend mpi`). */
  rendezvous_file?: string;
  /** The master's published addresses, best first; master_addr is the one this rank chose. */
  master_candidates?: string[];
  job_id: string;
  /** Slurm's ClusterName (SLURM_CLUSTER_NAME); absent under the local executor. */
  cluster?: string;
  /** The partition the job runs in (SLURM_JOB_PARTITION), also when Slurm chose the default. */
  partition?: string;
  restart: number;
  launcher: 'srun' | 'torchrun' | 'mpiexec' | 'local';
  started_at: number; // Unix seconds
  ended_at?: number;
  exit_code?: number;
  /** CPU seconds the rank's command used (user and system, with the children it waited for); set with exit_code. */
  cpu_s?: number;
}

/** eval/evaluation.json: what a training script writes for the evaluation figure (see docs/run-dir.md). */
export interface EvaluationData {
  version: 1;
  title?: string;
  /** Evaluation points, the true function f(x) and the model's output g(x), same length. */
  x: number[];
  f: number[];
  g: number[];
  /** Training samples and the training range, shaded in the figure. */
  train_x?: number[];
  train_y?: number[];
  train_range?: [number, number];
  epochs?: number;
}

export type { JobStateName } from '../job-states';

/** job.json: written by `submit`, updated when the final state is known. */
export interface JobRecord {
  version: 1;
  name: string;
  executor: 'slurm' | 'local';
  /** Slurm job id (or the local executor's id); absent until submitted. */
  job_id?: string;
  cluster?: string;
  submitted_at: number; // Unix seconds
  /** The directory submit ran in: relative --artifact paths resolve there (or in the run directory). */
  submit_dir?: string;
  plan_digest: string;
  /** The job as submitted. Typed here: the fields other parts read. The launcher's option
   *  registry records more (launcher/options/registry.ts, RecordedSpec): a new recorded field that
   *  no other part reads needs no change here. */
  spec: {
    [field: string]: unknown;
    nodes: number;
    tasks_per_node: number;
    gpus_per_node: number;
    world_size: number;
    launcher: 'srun' | 'torchrun' | 'mpiexec';
    backend: 'nccl' | 'gloo' | 'mpi';
    partition?: string;
    account?: string;
    qos?: string;
    time?: string;
    container?: string;
    modules: string[];
    /** The user's command and its arguments, exactly as given. */
    command: string[];
    /** Names only: values of --env may be secret and are not recorded here. */
    env_keys: string[];
    /** Tracking settings chosen at submit time (flags, config, env). */
    experiment?: string;
    metrics_format?: string;
    params: Record<string, string>;
    /** --artifact: files the job writes, attached to the parent run when it ends (paths or globs as given). */
    artifacts?: string[];
  };
  /** Last known state; final once `ended_at` is set. */
  state?: {
    name: JobStateName;
    exit_code?: number;
    signal?: number;
    reason?: string;
    nodes?: string;
    started_at?: number;
    ended_at?: number;
    failed_rank?: number;
    failed_host?: string;
    /** Local executor: the pid of the process that runs the ranks (cancel signals it). */
    supervisor_pid?: number;
  };
  restarts?: number;
  /** An array job's record (the top run directory): its --array and the task ids it expands to;
   *  each task has its own run directory, task-<N>/, with its own job.json. */
  array?: { spec: string; tasks: number[] };
  /** One task of an array job (task-<N>/job.json): job_id is `<array job id>_<N>`. */
  array_task?: { task_id: number; array_job_id?: string };
}
