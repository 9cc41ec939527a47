// track-launch logs: the job's combined output, or one rank's, optionally followed.
import * as fs from 'fs';
import { CommandModule } from 'yargs';
import { TrackLaunchError } from '../../core';
import { resolveRunDir } from '../../core';
import { runPaths } from '../../core';
import { isTerminal } from '../../core';
import { opsForRunDir } from '../../launcher';

type Args = { job: string; rank?: number; err?: boolean; follow?: boolean };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Copy bytes from `offset` to stdout; returns the new offset. */
function copyFrom(file: string, offset: number): number {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return offset;
    throw e;
  }
  try {
    const buf = Buffer.alloc(1 << 16);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, offset);
      if (n <= 0) return offset;
      process.stdout.write(buf.subarray(0, n));
      offset += n;
    }
  } finally {
    fs.closeSync(fd);
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
    if (!argv.follow && !fs.existsSync(file)) {
      throw new TrackLaunchError('NOT_FOUND', `${file} does not exist yet`, {
        hint: 'The job (or that rank) has not started; try --follow.',
      });
    }
    let offset = copyFrom(file, 0);
    if (!argv.follow) return;
    const ops = opsForRunDir(runDir);
    let warned = false;
    for (;;) {
      // The scheduler briefly unreachable must not end the follow: the file is still being written.
      const rec = await ops.refresh(runDir).catch((e: unknown) => {
        if (!(e instanceof TrackLaunchError) || e.code !== 'COMMAND_FAILED') throw e;
        if (!warned) process.stderr.write(`track-launch: warning: ${e.message}; still following\n`);
        warned = true;
        return undefined;
      });
      const ended = rec?.state !== undefined && isTerminal(rec.state.name);
      offset = copyFrom(file, offset);
      if (ended) return;
      await sleep(1000);
    }
  },
};
