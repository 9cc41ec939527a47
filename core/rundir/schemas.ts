// The schema of every JSON file track-launch reads from a run directory (formats: docs/run-dir.md,
// docs/tracking.md, docs/cluster.md). Objects may hold fields not named here (a newer writer of the
// same version); a field named here must have its type, and a required one must be there.
import { JOB_STATE_NAMES } from '../job-states';
import {
  arrayOf,
  COUNT,
  either,
  INTEGER,
  literal,
  NULL,
  NUMBER,
  object,
  oneOf,
  optional,
  recordOf,
  Schema,
  STRING,
  tuple,
} from './schema';

const STRINGS = arrayOf(STRING);
const NUMBERS = arrayOf(NUMBER);

/** job.json (JobRecord in layout.ts). */
export const JOB_RECORD: Schema = object({
  version: literal(1),
  name: STRING,
  executor: oneOf(['slurm', 'local']),
  job_id: optional(STRING),
  cluster: optional(STRING),
  submitted_at: NUMBER,
  submit_dir: optional(STRING),
  plan_digest: STRING,
  spec: object({
    nodes: INTEGER,
    tasks_per_node: INTEGER,
    gpus_per_node: INTEGER,
    world_size: INTEGER,
    launcher: oneOf(['srun', 'torchrun', 'mpiexec']),
    backend: oneOf(['nccl', 'gloo', 'mpi']),
    partition: optional(STRING),
    account: optional(STRING),
    qos: optional(STRING),
    time: optional(STRING),
    container: optional(STRING),
    modules: STRINGS,
    command: STRINGS,
    env_keys: STRINGS,
    experiment: optional(STRING),
    metrics_format: optional(STRING),
    params: recordOf(STRING),
    artifacts: optional(STRINGS),
  }),
  state: optional(
    object({
      name: oneOf(JOB_STATE_NAMES),
      exit_code: optional(INTEGER),
      signal: optional(INTEGER),
      reason: optional(STRING),
      nodes: optional(STRING),
      started_at: optional(NUMBER),
      ended_at: optional(NUMBER),
      failed_rank: optional(INTEGER),
      failed_host: optional(STRING),
      supervisor_pid: optional(INTEGER),
      supervisor_start: optional(NUMBER),
      pgid: optional(INTEGER),
      pgid_start: optional(NUMBER),
    }),
  ),
  restarts: optional(INTEGER),
  array: optional(object({ spec: STRING, tasks: arrayOf(INTEGER) })),
  array_task: optional(object({ task_id: INTEGER, array_job_id: optional(STRING) })),
});

/** logs/rank-R.json (RankFacts in layout.ts), as sbatch/rank-bootstrap.sh writes it. */
export const RANK_FACTS: Schema = object({
  version: literal(1),
  rank: INTEGER,
  local_rank: INTEGER,
  node_rank: INTEGER,
  world_size: INTEGER,
  local_world_size: INTEGER,
  host: STRING,
  ip: STRING,
  iface: STRING,
  master_addr: STRING,
  master_port: INTEGER,
  rendezvous_file: optional(STRING),
  master_candidates: optional(STRINGS),
  job_id: STRING,
  cluster: optional(STRING),
  partition: optional(STRING),
  restart: INTEGER,
  launcher: STRING,
  started_at: NUMBER,
  ended_at: optional(NUMBER),
  exit_code: optional(INTEGER),
  cpu_s: optional(NUMBER),
});

/** eval/evaluation.json (EvaluationData in layout.ts); lengths are checked by the reports. */
export const EVALUATION: Schema = object({
  version: literal(1),
  title: optional(STRING),
  x: NUMBERS,
  f: NUMBERS,
  g: NUMBERS,
  train_x: optional(NUMBERS),
  train_y: optional(NUMBERS),
  train_range: optional(arrayOf(NUMBER, 2)),
  epochs: optional(NUMBER),
});

const MAYBE_NUMBER = either(NUMBER, NULL);

/** One line of logs/node-<host>.resources.jsonl (ResourceSample in resource-samples.ts). */
export const RESOURCE_SAMPLE: Schema = object({
  version: literal(1),
  t: NUMBER,
  dt: NUMBER,
  host: STRING,
  ncpu: NUMBER,
  cpu_util: NUMBER,
  mem_used_mb: NUMBER,
  mem_total_mb: NUMBER,
  alloc_cpus: MAYBE_NUMBER,
  alloc_mem_mb: MAYBE_NUMBER,
  job: object({ nproc: NUMBER, cpu_s: NUMBER, cpu_util: NUMBER, rss_mb: NUMBER }),
  gpus: optional(
    arrayOf(
      object({
        index: INTEGER,
        util: MAYBE_NUMBER,
        mem_used_mb: MAYBE_NUMBER,
        mem_total_mb: MAYBE_NUMBER,
      }),
    ),
  ),
});

const SYSTEM_CURSOR = object({
  files: recordOf(object({ bytes: COUNT, lines: COUNT })),
  spool: COUNT,
  points: COUNT,
});

/** tracking/state.json (SpoolState in tracking-plugin/ingest/state.ts). */
export const SPOOL_STATE: Schema = object({
  version: literal(1),
  job_key: STRING,
  format: STRING,
  ranks: recordOf(
    object({
      out: COUNT,
      lines: COUNT,
      ts: COUNT,
      tsLines: COUNT,
      spool: COUNT,
      points: COUNT,
      skipped: COUNT,
      counters: recordOf(NUMBER),
      host: optional(STRING),
      sys: optional(SYSTEM_CURSOR),
      truncated: optional(COUNT),
      lastMs: optional(NUMBER),
      cut: optional(COUNT),
      scan: optional(COUNT),
    }),
  ),
  parent: object({ spool: COUNT, points: COUNT, pending: optional(COUNT), repeated: optional(COUNT) }),
  nodes: optional(recordOf(SYSTEM_CURSOR)),
});

/** tracking/mlflow-<server>.json (ServerState in tracking-plugin/ingest/state.ts). */
export const SERVER_STATE: Schema = object({
  version: literal(1),
  uri: STRING,
  experiment: optional(STRING),
  experiment_id: optional(STRING),
  parent_run_id: optional(STRING),
  rank_run_ids: recordOf(STRING),
  sent: recordOf(COUNT),
  sent_points: recordOf(COUNT),
  tagged: recordOf(STRING),
  artifacts: recordOf(literal(true)),
  finished: optional(STRING),
  updated_at: optional(NUMBER),
});

/** One record of a spool (tracking/spool/*.jsonl): [key, value, step, timestamp ms], a value that is
 *  not finite as MLflow's string for it. */
export const SPOOL_RECORD: Schema = tuple(
  STRING,
  either(NUMBER, oneOf(['NaN', 'Infinity', '-Infinity'])),
  NUMBER,
  NUMBER,
);

/** tracking/tracker.json (TrackerRecord in tracking-plugin/ingest/tracker.ts). */
export const TRACKER: Schema = object({
  placement: oneOf(['login', 'job', 'follow', 'manual', 'cron']),
  host: STRING,
  pid: INTEGER,
  start: optional(STRING),
  boot_id: optional(STRING),
  started_at: NUMBER,
  updated_at: NUMBER,
  last_sent_at: optional(NUMBER),
  points_pending: COUNT,
  undelivered: object({ points: COUNT, params: COUNT, tags: COUNT, files: COUNT }),
  lag_ms: COUNT,
});
