// track-launch ingest: spool a run dir's metrics and send them to MLflow when a tracking URI is set.
import { CommandModule } from 'yargs';
import { invalidOption, TrackLaunchError } from '../../core';
import type { IngestOptions } from '../../tracking-plugin';
import { printTracked } from '../tracking-output';
import { ingestOptionsOf, trackingOptions, type TrackingArgs } from '../tracking-args';
import { ingestJob } from '../workflows/follow-and-track';
import { ingestAll } from '../workflows/ingest-all';

type Placement = NonNullable<IngestOptions['placement']>;

type Args = TrackingArgs & {
  job?: string;
  all?: boolean;
  placement?: string;
  follow?: boolean;
  offline?: boolean;
  poll: string;
  report?: boolean;
};

export const ingestCommand: CommandModule<object, Args> = {
  command: 'ingest [job]',
  describe:
    "Spool every rank's metrics from the run dir and send them to MLflow (offline: spool only), exactly once",
  builder: (y) =>
    y
      .positional('job', { type: 'string', describe: 'Job id or run directory' })
      .options(trackingOptions())
      .option('all', {
        type: 'boolean',
        describe:
          'Every job of your job index whose MLflow runs are not ended yet, once (for cron; jobs a live tracker holds are left to it)',
      })
      // Set by the trackers track-launch starts (submit's follower, the in-allocation tracker): shown by status.
      .option('placement', {
        type: 'string',
        hidden: true,
        choices: ['login', 'job', 'follow', 'manual', 'cron'],
      })
      .option('follow', { alias: 'f', type: 'boolean', describe: 'Keep ingesting until the job ends' })
      .option('offline', {
        type: 'boolean',
        describe: 'Only spool, into <run-dir>/tracking (sync sends it later)',
      })
      .option('poll', {
        type: 'string',
        default: '2',
        describe:
          'Seconds between cycles with --follow (a longer poll: fewer requests, as a cycle sends one per rank with new points)',
      })
      .option('report', {
        type: 'boolean',
        default: true,
        describe:
          'Render the report once the job has ended, whatever reached MLflow, and attach it to the parent run (--no-report skips it)',
      })
      .example('$0 ingest 1234 --follow', 'live, while job 1234 runs')
      .example(
        '*/5 * * * * $0 ingest --all',
        "a crontab line: every job up to date, runs ended with Slurm's state",
      )
      .example('$0 ingest runs/poly-20261202 --metrics-format jsonl', 'after the job') as never,
  handler: async (argv) => {
    const poll = Number(argv.poll);
    if (!Number.isFinite(poll) || poll <= 0)
      throw invalidOption('poll', argv.poll, 'use a number of seconds greater than 0, e.g. 2');
    if (argv.all && (argv.job !== undefined || argv.follow))
      throw new TrackLaunchError('USAGE', 'ingest --all takes no job and no --follow', {
        hint: 'track-launch ingest --all (every unfinished job, once), or track-launch ingest <job> [--follow]',
      });
    if (!argv.all && argv.job === undefined)
      throw new TrackLaunchError('USAGE', 'ingest needs a job id or run directory, or --all', {
        hint: 'e.g. track-launch ingest 1234, or track-launch ingest --all from cron',
      });
    const placement = (argv.placement ??
      (argv.all ? 'cron' : argv.follow ? 'follow' : 'manual')) as Placement;
    const common = {
      ingest: { ...ingestOptionsOf(argv), placement },
      uri: argv['tracking-uri'],
      json: Boolean(argv.json),
      report: argv.report !== false,
      pollMs: Math.max(0.2, poll) * 1000,
    };
    if (argv.all) return printTracked(await ingestAll(common), Boolean(argv.json));
    const tracked = await ingestJob({
      ...common,
      job: argv.job!,
      follow: Boolean(argv.follow),
    });
    printTracked(tracked, Boolean(argv.json));
  },
};
