// track-launch sync: spool what is not yet spooled and send the spool to the tracking server.
import { CommandModule } from 'yargs';
import { printTracked } from '../tracking-output';
import { ingestOptionsOf, trackingOptions, type TrackingArgs } from '../tracking-args';
import { ingestJob } from '../workflows/follow-and-track';

type Args = TrackingArgs & { runDir: string };

export const syncCommand: CommandModule<object, Args> = {
  command: 'sync <run-dir>',
  describe: 'Send an offline run directory to MLflow (MLFLOW_TRACKING_URI or --tracking-uri)',
  builder: (y) =>
    y
      .positional('run-dir', { type: 'string', describe: 'Run directory (or job id)', demandOption: true })
      .options(trackingOptions())
      .example(
        'MLFLOW_TRACKING_URI=http://mlflow:5000 $0 sync runs/poly-20261202',
        'from a machine that reaches the server',
      )
      .epilog(
        'The job state is taken from job.json as it is. Once the job has ended, its report is rendered and attached to the parent run, whatever reached MLflow.',
      ) as never,
  handler: async (argv) => {
    const tracked = await ingestJob({
      job: argv.runDir,
      ingest: ingestOptionsOf(argv),
      uri: argv['tracking-uri'],
      json: Boolean(argv.json),
      report: true,
      follow: false,
      pollMs: 0,
      sync: true,
    });
    printTracked(tracked, Boolean(argv.json));
  },
};
