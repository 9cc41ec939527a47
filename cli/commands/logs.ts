// track-launch logs: the job's combined output, or one rank's, optionally followed.
import { CommandModule } from 'yargs';
import { TrackLaunchError } from '../../core';
import { resolveRunDir } from '../../core';
import { logStat, readLogRange, runPaths } from '../../core';
import { opsForRunDir, watchJob } from '../../launcher';

type Args = { job: string; rank?: number; err?: boolean; follow?: boolean };

/** Copy bytes from `offset` to stdout; returns the new offset. */
async function copyFrom(runDir: string, file: string, offset: number): Promise<number> {
  for (;;) {
    const buf = await readLogRange(runDir, file, offset, 1 << 16);
    if (buf.length === 0) return offset;
    process.stdout.write(buf);
    offset += buf.length;
  }
}

export const logsCommand: CommandModule<object, Args> = {
  command: 'logs <job>',
  describe: "Print the job's output, or one rank's (byte-exact), optionally following it",
  builder: (y) =>
    y
      .positional('job', { type: 'string', describe: 'Job id or run directory', demandOption: true })
      .option('rank', { type: 'number', describe: "Only this rank's stdout (logs/rank-<R>.out)" })
      .option('err', { type: 'boolean', describe: 'With --rank: its stderr instead' })
      .option('follow', {
        alias: 'f',
        type: 'boolean',
        describe: 'Keep printing new output until the job ends',
      })
      .example('$0 logs 1234 --rank 2 -f', 'follow rank 2') as never,
  handler: async (argv) => {
    const runDir = resolveRunDir(argv.job);
    const p = runPaths(runDir);
    if (argv.rank !== undefined && (!Number.isInteger(argv.rank) || argv.rank < 0)) {
      throw new TrackLaunchError(
        'INVALID_SPEC',
        `--rank: ${argv.rank} is not a rank; use a whole number from 0 to world size - 1`,
      );
    }
    const file =
      argv.rank === undefined ? p.jobOutput : argv.err ? p.rankErr(argv.rank) : p.rankOut(argv.rank);
    if (!argv.follow && !logStat(runDir, file)) {
      throw new TrackLaunchError('NOT_FOUND', `${file} does not exist yet`, {
        hint: 'The job (or that rank) has not started; try --follow.',
      });
    }
    let offset = await copyFrom(runDir, file, 0);
    if (!argv.follow) return;
    // The watcher rides out a scheduler outage (the file is still being written) and copies the
    // output after every poll, the last time once the job's final state is known.
    await watchJob(runDir, opsForRunDir(runDir).refresh, {
      pollMs: 1000,
      maxBackoffMs: 5000, // new output is still copied during an outage
      onWarning: (m) => process.stderr.write(`track-launch: warning: ${m}\n`),
      onProgress: async () => void (offset = await copyFrom(runDir, file, offset)),
    });
  },
};
