// The Tracking options of `submit`: recorded in job.json for the tracking plugin.
import { invalidOption } from '../../core';
import { keyValues, str, text } from './parse-values';
import { Parse, specOption } from './types';

/** --param KEY=VALUE: KEY neither a built-in parameter (`job.*`, logged by the tracking plugin from
 *  the job record) nor a name MLflow refuses (`../x`, `a//b`): either would block the run's data.
 *  VALUE within MLflow's length limit: a longer one could only arrive cut. */
const parseParams: Parse<Record<string, string>> = (v, flag, ctx) => {
  const pairs = keyValues(/^[A-Za-z0-9_.\-/ ]{1,250}$/, 'letters, digits, _ . - / or spaces')(v, flag, ctx);
  for (const [key] of pairs) {
    if (key.startsWith('job.'))
      throw invalidOption(
        flag,
        key,
        'job.* parameters are logged by track-launch from the job itself (job.nodes, job.world_size, ...): choose another key',
      );
    if (ctx.isValidParamKey && !ctx.isValidParamKey(key))
      throw invalidOption(flag, key, 'MLflow refuses this key: no leading /, no . or .. path parts, no //');
  }
  for (const [key, value] of pairs) {
    if (ctx.maxParamValue !== undefined && value.length > ctx.maxParamValue)
      throw invalidOption(
        flag,
        `${key}=${value.slice(0, 40)}...`,
        `the value has ${value.length} characters; MLflow keeps at most ${ctx.maxParamValue} per param: put long values in a file and pass its path (or attach it with --artifact)`,
      );
  }
  return Object.fromEntries(pairs);
};

const group = 'Tracking:';

export const TRACKING_OPTIONS = {
  experiment: specOption({
    type: 'string',
    group,
    help: 'MLflow experiment (default $MLFLOW_EXPERIMENT_NAME, else the job name)',
    env: true,
    parse: text(),
    record: { field: 'experiment', value: (s) => s.experiment },
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
    record: { field: 'metrics_format', value: (s) => s.metricsFormat },
  }),
  param: specOption({
    type: 'list',
    group,
    help: 'Record KEY=VALUE as an MLflow parameter (repeatable)',
    parse: parseParams,
    record: { field: 'params', value: (s) => s.params },
  }),
};
