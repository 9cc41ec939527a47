// The tracking options `ingest` and `sync` share, and the ingest options they map to.
import type { IngestOptions } from '../tracking-plugin';
import { tracking } from './lazy';

export type TrackingArgs = {
  'tracking-uri'?: string;
  experiment?: string;
  'metrics-format'?: string;
  'requests-in-flight'?: string;
  json?: boolean;
};

/** A function, so that the tracking plugin (for FORMATS) loads only when such a command runs. */
export const trackingOptions = () =>
  ({
    'tracking-uri': {
      type: 'string',
      describe: 'MLflow tracking server (default: MLFLOW_TRACKING_URI; none: offline)',
    },
    experiment: {
      type: 'string',
      describe:
        'MLflow experiment (default: the one chosen at submit, MLFLOW_EXPERIMENT_NAME, else the job name)',
    },
    'metrics-format': {
      type: 'string',
      describe: `How to read metrics from the logs: ${tracking().FORMATS.join(', ')} (default: as at submit, else auto)`,
    },
    'requests-in-flight': {
      type: 'string',
      describe: 'Requests in flight to MLflow at once (default: TRACK_LAUNCH_REQUESTS_IN_FLIGHT, else 4)',
    },
  }) as const;

export const ingestOptionsOf = (argv: TrackingArgs & { offline?: boolean }): IngestOptions => ({
  ...(argv['tracking-uri'] ? { trackingUri: argv['tracking-uri'] } : {}),
  ...(argv.experiment ? { experiment: argv.experiment } : {}),
  ...(argv['metrics-format'] ? { format: argv['metrics-format'] } : {}),
  ...(argv['requests-in-flight'] !== undefined
    ? { requestsInFlight: tracking().requestsInFlight(argv['requests-in-flight'], '--requests-in-flight') }
    : {}),
  ...(argv.offline ? { offline: true } : {}),
});
