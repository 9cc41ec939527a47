// The Tracking options of `submit`: recorded in job.json for the tracking plugin.
import { invalidOption } from '../../core';
import { keyValues, onOff, oneOf, str, text } from './parse-values';
import { ParseContext, Parse, specOption } from './types';

/** The keys --param (and each --param-grid line) may use: what MLflow takes, as we write it. */
export const PARAM_KEY = /^[A-Za-z0-9_.\-/ ]{1,250}$/;
const PARAM_KEY_WORDS = 'letters, digits, _ . - / or spaces';

/** A parameter's KEY neither a built-in parameter (`job.*`, logged by the tracking plugin from
 *  the job record) nor a name MLflow refuses (`../x`, `a//b`): either would block the run's data.
 *  VALUE within MLflow's length limit: a longer one could only arrive cut. */
export function checkParam(flag: string, key: string, value: string, ctx: ParseContext): void {
  if (!PARAM_KEY.test(key)) throw invalidOption(flag, key, `use a KEY of ${PARAM_KEY_WORDS}`);
  if (key.startsWith('job.'))
    throw invalidOption(
      flag,
      key,
      'job.* parameters are logged by track-launch from the job itself (job.nodes, job.world_size, ...): choose another key',
    );
  if (ctx.isValidParamKey && !ctx.isValidParamKey(key))
    throw invalidOption(flag, key, 'MLflow refuses this key: no leading /, no . or .. path parts, no //');
  if (ctx.maxParamValue !== undefined && value.length > ctx.maxParamValue)
    throw invalidOption(
      flag,
      `${key}=${value.slice(0, 40)}...`,
      `the value has ${value.length} characters; MLflow keeps at most ${ctx.maxParamValue} per param: put long values in a file and pass its path (or attach it with --artifact)`,
    );
}

/** --param KEY=VALUE, repeatable. */
const parseParams: Parse<Record<string, string>> = (v, flag, ctx) => {
  const pairs = keyValues(PARAM_KEY, PARAM_KEY_WORDS)(v, flag, ctx);
  for (const [key] of pairs) checkParam(flag, key, '', ctx);
  for (const [key, value] of pairs) checkParam(flag, key, value, ctx);
  return Object.fromEntries(pairs);
};

const group = 'Tracking:';

/** Where a job is tracked when nobody follows it (`submit` without --follow). */
export const TRACKERS = ['login', 'job', 'none'] as const;
export type Tracker = (typeof TRACKERS)[number];

export const TRACKING_OPTIONS = {
  experiment: specOption({
    type: 'string',
    group,
    help: 'MLflow experiment (default $MLFLOW_EXPERIMENT_NAME, else the job name)',
    env: true,
    parse: text(),
    record: 'experiment',
  }),
  metricsFormat: specOption({
    type: 'string',
    group,
    help: 'polynomial, luna, jsonl, or regex:<pattern> (default: detected)',
    env: true,
    // Refused now rather than at the first ingest: the checker names the option and the formats.
    parse: (v, flag, ctx) => {
      const format = str(flag, v);
      if (format !== undefined) ctx.checkMetricsFormat?.(format);
      return format;
    },
    record: 'metrics_format',
  }),
  param: specOption({
    type: 'list',
    group,
    help: 'Record KEY=VALUE as an MLflow parameter (repeatable)',
    parse: parseParams,
    record: 'params',
  }),
  paramGrid: specOption({
    type: 'string',
    group,
    help: 'A sweep: a JSON-lines file, one object of parameters per line; task N of the array (default --array 0-(lines-1)) gets line N as MLflow params and in $TRACK_LAUNCH_PARAMS_FILE',
    // The path only: the file is read, and each line checked like --param, in validateSubmit.
    parse: text(),
  }),
  track: specOption({
    type: 'choice',
    choices: TRACKERS,
    group,
    help: 'Where the job is tracked without --follow: login (a detached follower on this login node; the default with a tracking URI), job (beside the ranks on the batch host: compute nodes need Node.js and a route to MLflow), none (by hand, or `ingest --all` from cron)',
    env: true,
    parse: oneOf(TRACKERS), // the default depends on the tracking URI: planSubmission
    record: 'track',
  }),
  mlflowEnv: specOption({
    type: 'boolean',
    group,
    help: "The script's own MLflow calls join the job: its runs are made at submit and every rank gets MLFLOW_TRACKING_URI, MLFLOW_EXPERIMENT_ID and MLFLOW_RUN_ID (its rank's run); credentials only as named with --env",
    parse: onOff,
    record: 'mlflow_env',
    // The bootstrap exports the rank's values from tracking/mlflow-env.tsv (made at submit).
    bootstrap: {
      flags: ['--mlflow-env'],
      slot: 10,
      args: (s): string[] => (s.mlflowEnv ? ['--mlflow-env'] : []),
    },
  }),
};
