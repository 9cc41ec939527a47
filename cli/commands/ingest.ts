// track-launch ingest <job|run-dir> [--follow]: the run dir's metrics into the tracking spool and,
// when a tracking URI is set, into MLflow. Safe to repeat or interrupt: every point lands once.
import * as fs from 'fs';
import * as path from 'path';
import { CommandModule } from 'yargs';
import { invalidOption, TrackLaunchError } from '../../core';
import { resolveRunDir } from '../../core';
import { runPaths } from '../../core';
import { opsForRunDir } from '../../launcher';
import type { Summary } from '../../tracking-plugin';
import { FORMATS } from '../../tracking-plugin';
import { printJson, ProgressLine } from '../output';
import { tracking } from '../lazy';
import { reportAfterJob } from '../publish-report';

export type TrackingArgs = {
  'tracking-uri'?: string;
  experiment?: string;
  'metrics-format'?: string;
  json?: boolean;
};
type Args = TrackingArgs & {
  job: string;
  follow?: boolean;
  offline?: boolean;
  poll: string;
  report?: boolean;
};

/** A run dir path (job.json optional: hand-made dirs with logs/ work too) or a job id. */
export function runDirOf(jobOrDir: string): string {
  const p = path.resolve(jobOrDir);
  if (fs.existsSync(runPaths(p).logsDir) || fs.existsSync(runPaths(p).jobJson)) return p;
  return resolveRunDir(jobOrDir);
}

export function printSummary(s: Summary): void {
  const lines: string[] = [tracking().formatProgress(s)];
  if (s.trackingUri && s.parentRunId) {
    lines.push(
      `MLflow: parent run ${s.trackingUri}/#/experiments/${s.experimentId ?? '0'}/runs/${s.parentRunId} with ${Object.keys(s.rankRunIds).length} rank runs${s.status ? `, ${s.status}` : ''}`,
    );
  } else if (!s.trackingUri) {
    lines.push(
      `offline: ${s.pointsSpooled} points kept in ${runPaths(s.runDir).trackingDir}; upload them with: track-launch sync ${s.runDir}`,
    );
  }
  for (const w of s.warnings) lines.push(`warning: ${w}`);
  process.stderr.write(lines.join('\n') + '\n');
}

/** A summary that did not reach MLflow becomes the command's error (the spool keeps everything). */
export function failIfIncomplete(s: Summary): void {
  if (!s.trackingUri || s.complete || (s.pending === 0 && !s.final && !s.lastError)) return;
  // A refusal (401, 403, a bad URI) is not fixed by waiting: lastError already says what to set.
  const when = s.stopped ? 'once that is fixed' : 'when the server answers';
  throw new TrackLaunchError(
    'TRACKING',
    `${s.pending} of ${s.pointsSpooled} points are not in MLflow yet${s.lastError ? `: ${s.lastError}` : ''}`,
    {
      hint: `they are kept in ${runPaths(s.runDir).trackingDir}; run \`track-launch sync ${s.runDir}\` again ${when}`,
      details: { pending: s.pending, tracking_uri: s.trackingUri },
    },
  );
}

export const trackingOptions = {
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
    describe: `How to read metrics from the logs: ${FORMATS.join(', ')} (default: as at submit, else auto)`,
  },
} as const;

async function follow(runDir: string, argv: Args): Promise<Summary> {
  const progress = new ProgressLine(process.stderr, Boolean(argv.json));
  const { formatProgress, startLiveIngest } = tracking();
  const live = startLiveIngest(runDir, {
    ...common(argv),
    pollMs: Math.max(0.2, Number(argv.poll)) * 1000,
    onProgress: (p) => progress.update(formatProgress(p)),
  });
  const onInt = () => void live.stop();
  process.on('SIGINT', onInt);
  // job.json alone may not change when nobody follows the job: ask the scheduler too
  const ops = fs.existsSync(runPaths(runDir).jobJson) ? opsForRunDir(runDir) : undefined;
  let warned = false;
  const timer = setInterval(
    () => {
      ops?.refresh(runDir).then(
        (rec) => rec.state?.ended_at !== undefined && live.jobEnded(rec.state.name),
        (err: Error) => {
          if (!warned)
            process.stderr.write(
              `track-launch: warning: cannot ask the scheduler for the job state (${err.message}); waiting for job.json\n`,
            );
          warned = true;
        },
      );
    },
    Math.max(1, Number(argv.poll)) * 1000,
  );
  try {
    return await live.done;
  } finally {
    clearInterval(timer);
    process.off('SIGINT', onInt);
    progress.done();
  }
}

/** After the fact, job.json may still say RUNNING (nobody followed the job): ask the scheduler once,
 *  so the runs end with the real state. Best effort: the logs are ingested either way. */
async function refreshUnlessEnded(runDir: string): Promise<void> {
  if (!fs.existsSync(runPaths(runDir).jobJson)) return;
  try {
    await opsForRunDir(runDir).refresh(runDir); // a no-op once job.json holds a final state
  } catch (err) {
    process.stderr.write(
      `track-launch: warning: cannot ask the scheduler for the job state (${(err as Error).message}); using job.json as it is\n`,
    );
  }
}

const common = (argv: TrackingArgs & { offline?: boolean }) => ({
  ...(argv['tracking-uri'] ? { trackingUri: argv['tracking-uri'] } : {}),
  ...(argv.experiment ? { experiment: argv.experiment } : {}),
  ...(argv['metrics-format'] ? { format: argv['metrics-format'] } : {}),
  ...(argv.offline ? { offline: true } : {}),
});

export const ingestCommand: CommandModule<object, Args> = {
  command: 'ingest <job>',
  describe: "Read every rank's metrics from the run dir into MLflow (or the offline spool), exactly once",
  builder: (y) =>
    y
      .positional('job', { type: 'string', describe: 'Job id or run directory', demandOption: true })
      .options(trackingOptions)
      .option('follow', { alias: 'f', type: 'boolean', describe: 'Keep ingesting until the job ends' })
      .option('offline', {
        type: 'boolean',
        describe: 'Only fill the spool in <run-dir>/tracking (sync uploads it later)',
      })
      .option('poll', { type: 'string', default: '2', describe: 'Seconds between polls with --follow' })
      .option('report', {
        type: 'boolean',
        default: true,
        describe: 'Render and attach the report once the job has ended (--no-report skips it)',
      })
      .example('$0 ingest 1234 --follow', 'live, while job 1234 runs')
      .example('$0 ingest runs/poly-20261202 --metrics-format jsonl', 'after the job') as never,
  handler: async (argv) => {
    const poll = Number(argv.poll);
    if (!Number.isFinite(poll) || poll <= 0)
      throw invalidOption('poll', argv.poll, 'use a number of seconds greater than 0, e.g. 2');
    const runDir = runDirOf(argv.job);
    if (!argv.follow) await refreshUnlessEnded(runDir);
    const summary = argv.follow
      ? await follow(runDir, argv)
      : await tracking().ingestRunDir(runDir, common(argv));
    if (!argv.json) printSummary(summary);
    const report =
      summary.final && argv.report !== false
        ? await reportAfterJob(runDir, { uri: argv['tracking-uri'], json: argv.json })
        : undefined;
    if (argv.json) printJson({ ...summary, reports: report?.files ?? [] });
    failIfIncomplete(summary);
  },
};
