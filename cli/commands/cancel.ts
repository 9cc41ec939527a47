// track-launch cancel: scancel the job (or signal it), and say what happened.
import { CommandModule } from 'yargs';
import { readJobRecord, resolveRunDir, TrackLaunchError } from '../../core';
import { executorForRunDir } from '../../launcher';
import { tracking } from '../lazy';
import type { TrackerStatus } from '../../tracking-plugin';
import { printJson } from '../output';

type Args = { job: string; signal?: string; json?: boolean };

export const cancelCommand: CommandModule<object, Args> = {
  command: 'cancel <job>',
  describe: 'Cancel a job (scancel), or send it a signal',
  builder: (y) =>
    y
      .positional('job', { type: 'string', describe: 'Job id or run directory', demandOption: true })
      .option('signal', {
        type: 'string',
        describe: 'Send this signal to every rank instead of cancelling (e.g. USR1)',
      })
      .example('$0 cancel 1234', 'cancel the job') as never,
  handler: async (argv) => {
    const runDir = resolveRunDir(argv.job);
    const rec = readJobRecord(runDir);
    if (!rec.job_id) throw new TrackLaunchError('NOT_FOUND', `${runDir} holds no submitted job`);
    if (argv.signal !== undefined && !/^(SIG)?[A-Z0-9]+$/.test(argv.signal))
      throw new TrackLaunchError(
        'INVALID_SPEC',
        `--signal: ${JSON.stringify(argv.signal)} is not a signal name; use e.g. USR1, TERM, INT`,
      );
    await executorForRunDir(runDir).cancel(runDir, argv.signal);
    if (argv.json) printJson({ job_id: rec.job_id, run_dir: runDir, requested: argv.signal ?? 'cancel' });
    else process.stderr.write(`${argv.signal ? `sent ${argv.signal} to` : 'cancelled'} job ${rec.job_id}\n`);
    // its tracker learns the final state from Slurm, ends the runs with it and exits
    // The job is cancelled whatever its tracker record says: an unreadable one is only named.
    let t: TrackerStatus | undefined;
    try {
      t = argv.signal || argv.json ? undefined : tracking().trackerStatus(runDir);
    } catch (err) {
      if (!(err instanceof TrackLaunchError)) throw err;
      process.stderr.write(`warning: its tracker record is unreadable: ${err.message}\n`);
    }
    if (t && t.alive !== false)
      process.stderr.write(
        `its tracker (pid ${t.pid} on ${t.host}) ends the MLflow runs once Slurm reports the job over, then exits\n`,
      );
  },
};
