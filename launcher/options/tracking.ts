// The Tracking options of `submit`: recorded in job.json for the tracking plugin.
import { keyValues, str, text } from './parse-values';
import { specOption } from './types';

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
    parse: (v, flag, ctx) =>
      Object.fromEntries(
        keyValues(/^[A-Za-z0-9_.\-/ ]{1,250}$/, 'letters, digits, _ . - / or spaces')(v, flag, ctx),
      ),
    record: { field: 'params', value: (s) => s.params },
  }),
};
