// Run names, tags and params for the parent (job) and child (rank) runs (pure).
import { createHash } from 'crypto';
import * as path from 'path';
import type { JobRecord, RankFacts } from '../../core';
import { fitValue, MAX_PARAM_VALUE, MAX_TAG_VALUE, type KeyValue } from '../mlflow/batch';

export const TAG_JOB_KEY = 'track_launch.job_key';
export const TAG_ROLE = 'track_launch.role';
export const TAG_RANK = 'track_launch.rank';

/** --experiment, else job.json (chosen at submit), else MLFLOW_EXPERIMENT_NAME, else the job name. */
export function experimentName(
  flag: string | undefined,
  job: JobRecord | undefined,
  env: NodeJS.ProcessEnv,
  runDir: string,
): string {
  return (
    flag ||
    job?.spec?.experiment ||
    env.MLFLOW_EXPERIMENT_NAME ||
    job?.name ||
    path.basename(path.resolve(runDir))
  );
}

/** `<job name> #<job id>`, so two jobs of one script tell apart in the runs table; the name alone
 *  when there is no job id (a hand-made run dir). An array task's job id is `<job>_<task>`, as
 *  Slurm writes it: `train #123_2`. */
export function parentName(job: JobRecord | undefined, runDir: string): string {
  const name = job?.name ?? path.basename(path.resolve(runDir));
  return job?.job_id ? `${name} #${job.job_id}` : name;
}

/** The entries that have a value; with `limit`, values we make are fitted to it (fitValue). */
function kv(entries: Record<string, string | number | undefined>, limit?: number): KeyValue[] {
  return Object.entries(entries)
    .filter((e): e is [string, string | number] => e[1] !== undefined && e[1] !== '')
    .map(([key, value]) => ({
      key,
      value: limit === undefined ? String(value) : fitValue(String(value), limit),
    }));
}

export interface Who {
  user: string;
  gitCommit?: string;
}

/** Tags set when the parent is created (identity) and kept up to date (job facts). */
export function parentTags(
  job: JobRecord | undefined,
  runDir: string,
  jobKey: string,
  facts: RankFacts | undefined,
  who: Who,
): KeyValue[] {
  const spec = job?.spec;
  return kv(
    {
      [TAG_JOB_KEY]: jobKey,
      [TAG_ROLE]: 'parent',
      'track_launch.run_dir': path.resolve(runDir),
      'mlflow.runName': parentName(job, runDir),
      'mlflow.source.type': 'JOB',
      'mlflow.source.name': spec?.command?.join(' '),
      'mlflow.user': who.user,
      'mlflow.source.git.commit': who.gitCommit,
      'slurm.job_id': job?.job_id,
      // One task of an array job: its parent run, `<name> #<job>_<task>`, is found by these.
      'slurm.array_job_id': job?.array_task?.array_job_id,
      'slurm.array_task_id': job?.array_task?.task_id,
      'slurm.cluster': job?.cluster ?? facts?.cluster,
      'slurm.nodelist': job?.state?.nodes,
      'slurm.partition': spec?.partition ?? facts?.partition,
      'slurm.state': job?.state?.name,
      executor: job?.executor,
      launcher: spec?.launcher,
      backend: spec?.backend,
      world_size: spec?.world_size ?? facts?.world_size,
      node_count: spec?.nodes,
      master_addr: facts?.master_addr,
      master_port: facts?.master_port,
      container: spec?.container,
      // What went wrong and how often it started: in the runs table, without opening the job.
      restarts: job?.restarts ?? facts?.restart,
      failed_rank: job?.state?.failed_rank,
      failed_host: job?.state?.failed_host,
    },
    MAX_TAG_VALUE,
  );
}

/** The user's --param k=v as they are (but for names of built-in ones); the job spec's fields under `job.`. */
export function parentParams(job: JobRecord | undefined): KeyValue[] {
  const builtIn = builtInParams(job);
  const taken = new Set(builtIn.map((p) => p.key));
  return [...kv(job?.spec?.params ?? {}).filter((p) => !taken.has(p.key)), ...builtIn];
}

/** The user's --param names that a built-in parameter has (the built-in one is logged). */
export function paramClashes(job: JobRecord | undefined): string[] {
  const taken = new Set(builtInParams(job).map((p) => p.key));
  return Object.keys(job?.spec?.params ?? {}).filter((k) => taken.has(k));
}

function builtInParams(job: JobRecord | undefined): KeyValue[] {
  const spec = job?.spec;
  if (!spec) return [];
  return kv(
    {
      'job.nodes': spec.nodes,
      'job.tasks_per_node': spec.tasks_per_node,
      'job.gpus_per_node': spec.gpus_per_node,
      'job.world_size': spec.world_size,
      'job.launcher': spec.launcher,
      'job.backend': spec.backend,
      'job.partition': spec.partition,
      'job.account': spec.account,
      'job.qos': spec.qos,
      'job.time': spec.time,
      'job.container': spec.container,
      'job.modules': spec.modules?.join(' '),
      'job.command': spec.command?.join(' '),
      'job.metrics_format': spec.metrics_format,
    },
    MAX_PARAM_VALUE,
  );
}

export function childTags(
  rank: number,
  jobKey: string,
  parentRunId: string,
  facts: RankFacts | undefined,
  who: Who,
): KeyValue[] {
  return kv(
    {
      [TAG_JOB_KEY]: jobKey,
      [TAG_ROLE]: 'rank',
      [TAG_RANK]: rank,
      'mlflow.parentRunId': parentRunId,
      'mlflow.runName': `rank-${rank}`,
      'mlflow.source.type': 'JOB',
      'mlflow.user': who.user,
      rank,
      local_rank: facts?.local_rank,
      node_rank: facts?.node_rank,
      host: facts?.host,
      ip: facts?.ip,
      restart: facts?.restart,
      exit_code: facts?.exit_code,
    },
    MAX_TAG_VALUE,
  );
}

export const digest = (items: readonly KeyValue[]) =>
  createHash('sha256')
    .update(JSON.stringify(items.map((i) => [i.key, i.value])))
    .digest('hex')
    .slice(0, 16);

/** The search filter for all runs of one job (quoted: tag keys with dots need backticks). */
export const jobFilter = (jobKey: string) => `tags.\`${TAG_JOB_KEY}\` = '${jobKey.replace(/'/g, "\\'")}'`;
