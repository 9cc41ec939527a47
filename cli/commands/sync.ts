// track-launch sync <run-dir>: upload what an offline run spooled (and anything not yet ingested)
// to the tracking server, like `wandb sync`. Repeatable: nothing is sent twice.
import { CommandModule } from 'yargs';
import { TrackLaunchError } from '../../core';

import { trackingUri } from '../../tracking-plugin';
import { printJson } from '../output';
import { tracking } from '../lazy';
import { reportAfterJob } from '../publish-report';
import { failIfIncomplete, printSummary, runDirOf, trackingOptions, type TrackingArgs } from './ingest';

type Args = TrackingArgs & { runDir: string };

export const syncCommand: CommandModule<object, Args> = {
  command: 'sync <run-dir>',
  describe: 'Upload an offline run directory to MLflow (MLFLOW_TRACKING_URI or --tracking-uri)',
  builder: (y) =>
    y
      .positional('run-dir', { type: 'string', describe: 'Run directory (or job id)', demandOption: true })
      .options(trackingOptions)
      .example(
        'MLFLOW_TRACKING_URI=http://mlflow:5000 $0 sync runs/poly-20261202',
        'from a machine that reaches the server',
      ) as never,
  handler: async (argv) => {
    if (!trackingUri(argv['tracking-uri'])) {
      throw new TrackLaunchError(
        'USAGE',
        'sync needs a tracking server: set MLFLOW_TRACKING_URI or pass --tracking-uri',
        {
          hint: 'e.g. MLFLOW_TRACKING_URI=http://mlflow.example:5000 track-launch sync <run-dir>',
        },
      );
    }
    const runDir = runDirOf(argv.runDir);
    const summary = await tracking().syncRunDir(runDir, {
      ...(argv['tracking-uri'] ? { trackingUri: argv['tracking-uri'] } : {}),
      ...(argv.experiment ? { experiment: argv.experiment } : {}),
      ...(argv['metrics-format'] ? { format: argv['metrics-format'] } : {}),
    });
    if (!argv.json) printSummary(summary);
    // Uploads the report of a finished job too (rendered again: the logs may have grown since).
    const report =
      summary.final && summary.complete
        ? await reportAfterJob(runDir, { uri: argv['tracking-uri'], json: argv.json })
        : undefined;
    if (argv.json) printJson({ ...summary, reports: report?.files ?? [] });
    failIfIncomplete(summary);
  },
};
