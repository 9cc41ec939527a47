// track-launch ingest: spool a run dir's metrics and send them to MLflow when a tracking URI is set.
import { CommandModule } from 'yargs';
import { invalidOption } from '../../core';
import { printTracked } from '../tracking-output';
import { ingestOptionsOf, trackingOptions, type TrackingArgs } from '../tracking-args';
import { ingestJob } from '../workflows/follow-and-track';

type Args = TrackingArgs & {
  job: string;
  follow?: boolean;
  offline?: boolean;
  poll: string;
  report?: boolean;
};

export const ingestCommand: CommandModule<object, Args> = {
  command: 'ingest <job>',
  describe:
    "Spool every rank's metrics from the run dir and send them to MLflow (offline: spool only), exactly once",
  builder: (y) =>
    y
      .positional('job', { type: 'string', describe: 'Job id or run directory', demandOption: true })
      .options(trackingOptions())
      .option('follow', { alias: 'f', type: 'boolean', describe: 'Keep ingesting until the job ends' })
      .option('offline', {
        type: 'boolean',
        describe: 'Only spool, into <run-dir>/tracking (sync sends it later)',
      })
      .option('poll', { type: 'string', default: '2', describe: 'Seconds between polls with --follow' })
      .option('report', {
        type: 'boolean',
        default: true,
        describe:
          'Render the report once the job has ended, whatever reached MLflow, and attach it to the parent run (--no-report skips it)',
      })
      .example('$0 ingest 1234 --follow', 'live, while job 1234 runs')
      .example('$0 ingest runs/poly-20261202 --metrics-format jsonl', 'after the job') as never,
  handler: async (argv) => {
    const poll = Number(argv.poll);
    if (!Number.isFinite(poll) || poll <= 0)
      throw invalidOption('poll', argv.poll, 'use a number of seconds greater than 0, e.g. 2');
    const tracked = await ingestJob({
      job: argv.job,
      ingest: ingestOptionsOf(argv),
      uri: argv['tracking-uri'],
      json: Boolean(argv.json),
      follow: Boolean(argv.follow),
      pollMs: Math.max(0.2, poll) * 1000,
      report: argv.report !== false,
    });
    printTracked(tracked, Boolean(argv.json));
  },
};
