// track-launch logs: every rank's output merged in time order and labelled, or one rank's byte-exact.
import { once } from 'events';
import { CommandModule } from 'yargs';
import { arrayTasks, invalidOption, isFinal, listRanks, logStat } from '../../core';
import { resolveRunDir, runPaths, TrackLaunchError } from '../../core';
import { executorForRunDir, shellQuote, watchJob, type WatchOptions } from '../../launcher';
import { FollowedFile } from '../logs/followed-file';
import { formatLine, type LineFormat } from '../logs/format';
import type { LogLine, LogStream } from '../logs/line';
import { MergedLogs } from '../logs/merged';
import { OutputBuffer } from '../logs/writer';

type Args = {
  job: string;
  rank?: number;
  err?: boolean;
  follow?: boolean;
  tail?: number;
  'job-output'?: boolean;
  json?: boolean;
};

/** Copy what the file has now (from where the last copy stopped) to stdout. */
async function copyNew(src: FollowedFile): Promise<void> {
  for (;;) {
    const { bytes } = await src.read(1 << 16);
    if (bytes.length === 0) return;
    // at the reader's pace: a slow pipe must not make us hold the whole log in memory
    if (!process.stdout.write(bytes)) await once(process.stdout, 'drain');
  }
}

/** Said once each time a followed log is found truncated or replaced. */
const sayRestarted = (file: string) =>
  process.stderr.write(
    `track-launch: warning: ${file} was truncated or replaced; going on from the start of its new content\n`,
  );

/** Calls `onProgress` after every poll until the job's final state is known, through scheduler outages. */
const followJob = (runDir: string, onProgress: WatchOptions['onProgress']) =>
  watchJob(runDir, executorForRunDir(runDir).refresh, {
    pollMs: 1000,
    maxBackoffMs: 5000, // new output is still printed during an outage
    onWarning: (m) => process.stderr.write(`track-launch: warning: ${m}\n`),
    onProgress,
  });

/** One file as is (a rank's log with --rank, or logs/job.out), optionally followed: today's bytes. */
async function copyFile(runDir: string, file: string, follow: boolean): Promise<void> {
  const src = new FollowedFile(runDir, file, sayRestarted);
  await copyNew(src);
  if (follow) await followJob(runDir, () => copyNew(src));
}

function checkArgs(argv: Args): void {
  if (argv.rank !== undefined && (!Number.isInteger(argv.rank) || argv.rank < 0))
    throw invalidOption('rank', argv.rank, 'use a whole number from 0 to world size - 1');
  if (argv.tail !== undefined && (!Number.isInteger(argv.tail) || argv.tail < 0))
    throw invalidOption('tail', argv.tail, 'use a whole number of lines (0 or more)');
  if (argv['job-output'] && (argv.rank !== undefined || argv.tail !== undefined || argv.json || argv.err))
    throw new TrackLaunchError('USAGE', '--job-output prints logs/job.out as is', {
      hint: 'Leave out --rank, --err, --tail and --json with --job-output.',
    });
}

/** Merged or one rank's lines, formatted; the last N first when asked, then (--follow) new ones. */
async function printLines(runDir: string, argv: Args): Promise<void> {
  const one = argv.rank !== undefined;
  const streams: LogStream[] = argv.err ? ['stderr'] : one ? ['stdout'] : ['stdout', 'stderr'];
  const logs = new MergedLogs(
    runDir,
    { ranks: one ? [argv.rank as number] : undefined, streams },
    sayRestarted,
  );
  const format: LineFormat = argv.json ? 'json' : one ? 'raw' : 'labelled';
  const out = new OutputBuffer();
  const print = (line: LogLine) => out.write(formatLine(line, format));
  const printNow = async (final: boolean) => {
    if (argv.tail !== undefined) for (const l of await logs.tail(argv.tail, final)) await print(l);
    else await logs.drain(final, print);
    await out.flush();
  };
  if (!argv.follow) return printNow(true);
  await printNow(false);
  await followJob(runDir, async ({ record }) => {
    await logs.drain(isFinal(record), print);
    await out.flush();
  });
}

export const logsCommand: CommandModule<object, Args> = {
  command: 'logs <job>',
  describe: "Print every rank's output labelled by rank, or one rank's (byte-exact), optionally following it",
  builder: (y) =>
    y
      .positional('job', { type: 'string', describe: 'Job id or run directory', demandOption: true })
      .option('rank', { type: 'number', describe: "Only this rank's stdout (logs/rank-<R>.out), byte-exact" })
      .option('err', { type: 'boolean', describe: 'stderr instead (of that rank, or of every rank)' })
      .option('tail', { type: 'number', describe: 'Only the last N lines (with --follow: then new ones)' })
      .option('follow', {
        alias: 'f',
        type: 'boolean',
        describe: 'Keep printing new output until the job ends',
      })
      .option('job-output', {
        type: 'boolean',
        describe: "Slurm's output of the batch script (logs/job.out) as is, also what ran before the ranks",
      })
      .example('$0 logs 1234', 'every rank, time order: [rank 3] ...; an array job: each task in turn')
      .example('$0 logs 1234_2 -f', 'follow task 2 of an array job')
      .example('$0 logs 1234 --tail 20 -f', 'the last 20 lines, then follow')
      .example('$0 logs 1234 --rank 2 -f', 'follow rank 2')
      .example('$0 logs 1234 --json', 'one JSON object per line: rank, stream, time, text') as never,
  handler: async (argv) => {
    checkArgs(argv);
    const runDir = resolveRunDir(argv.job);
    const tasks = arrayTasks(runDir);
    if (tasks.length === 0) return printLogs(runDir, argv);
    // An array job: each task's logs in turn, under a header, as `tail` shows several files.
    if (argv.follow)
      throw new TrackLaunchError('USAGE', `job ${argv.job} is an array job: follow one task at a time`, {
        hint: `track-launch logs <job>_<task> --follow (or a task's run dir, e.g. ${shellQuote(tasks[0].dir)})`,
      });
    for (const { task, dir } of tasks) {
      process.stdout.write(`==> task ${task} (${dir}) <==\n`);
      try {
        await printLogs(dir, argv);
      } catch (e) {
        // A task that has not started has no logs yet: said, and the next task's are shown.
        if (!(e instanceof TrackLaunchError) || e.code !== 'NOT_FOUND') throw e;
        process.stdout.write(`(${e.message})\n`);
      }
    }
  },
};

async function printLogs(runDir: string, argv: Args): Promise<void> {
  const p = runPaths(runDir);
  const { rank, err } = argv;
  const rankFile = rank === undefined ? undefined : err ? p.rankErr(rank) : p.rankOut(rank);
  const file = argv['job-output'] ? p.jobOutput : rankFile;
  if (!argv.follow && (file ? !logStat(runDir, file) : listRanks(runDir).length === 0))
    throw new TrackLaunchError('NOT_FOUND', `${file ?? `${p.logsDir}/rank-*.out`} does not exist yet`, {
      hint: `The job (or that rank) has not started; try --follow${argv['job-output'] ? '' : ', or --job-output for the batch script'}.`,
    });
  if (file && (argv['job-output'] || (argv.tail === undefined && !argv.json)))
    return copyFile(runDir, file, !!argv.follow);
  await printLines(runDir, argv);
}
