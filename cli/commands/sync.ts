// track-launch sync <run-dir>: upload what an offline run spooled (and anything not yet ingested)
// to the tracking server, like `wandb sync`. Repeatable: nothing is sent twice.
import { CommandModule } from 'yargs';
import { printTracked } from '../tracking-output';
import { ingestOptionsOf, trackingOptions, type TrackingArgs } from '../tracking-args';
import { syncJob } from '../workflows/track-run-dir';

type Args = TrackingArgs & { runDir: string };

export const syncCommand: CommandModule<object, Args> = {
  command: 'sync <run-dir>',
  describe: 'Upload an offline run directory to MLflow (MLFLOW_TRACKING_URI or --tracking-uri)',
  builder: (y) =>
    y
      .positional('run-dir', { type: 'string', describe: 'Run directory (or job id)', demandOption: true })
      .options(trackingOptions())
      .example(
        'MLFLOW_TRACKING_URI=http://mlflow:5000 $0 sync runs/poly-20261202',
        'from a machine that reaches the server',
      ) as never,
  handler: async (argv) => {
    const tracked = await syncJob({
      job: argv.runDir,
      ingest: ingestOptionsOf(argv),
      uri: argv['tracking-uri'],
      json: Boolean(argv.json),
    });
    printTracked(tracked, Boolean(argv.json));
  },
};
