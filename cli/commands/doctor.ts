// track-launch doctor: checks a setup end to end before the first real job.
import * as path from 'path';
import { CommandModule } from 'yargs';
import { invalidOption } from '../../core';
import { doctorExitCode, formatCheck, summary } from '../doctor/format';
import { runDoctor } from '../doctor/run-checks';
import { printJson } from '../output';

type Args = {
  'run-dir'?: string;
  job?: boolean;
  timeout?: number;
  executor?: string;
  partition?: string;
  account?: string;
  qos?: string;
  json?: boolean;
};

export const doctorCommand: CommandModule<object, Args> = {
  command: 'doctor',
  describe: 'Check this setup: Node, install, renderer and fonts, Slurm, the run directory, MLflow',
  builder: (y) =>
    y
      .option('run-dir', {
        type: 'string',
        describe:
          'Where run directories will go: a probe job writes into it from a compute node (default ./runs)',
      })
      .option('job', {
        type: 'boolean',
        default: true,
        describe: 'Submit the probe job (--no-job: skip the shared-filesystem check)',
      })
      .option('timeout', { type: 'number', default: 120, describe: 'Seconds to wait for the probe job' })
      .option('executor', {
        type: 'string',
        choices: ['slurm', 'local'],
        describe: 'Default: slurm where sbatch is on PATH',
      })
      .option('partition', {
        alias: 'p',
        type: 'string',
        describe: "Partition of the probe job (default: TRACK_LAUNCH_PARTITION, else Slurm's)",
      })
      .option('account', {
        alias: 'A',
        type: 'string',
        describe: 'Account of the probe job (default: TRACK_LAUNCH_ACCOUNT)',
      })
      .option('qos', {
        alias: 'q',
        type: 'string',
        describe: 'QOS of the probe job (default: TRACK_LAUNCH_QOS)',
      })
      .example('$0 doctor', 'every check; exit code 0 when none failed')
      .example('$0 doctor --no-job --json', 'without the probe job, as JSON') as never,
  handler: async (argv) => {
    const timeoutS = Number(argv.timeout ?? 120);
    if (!Number.isFinite(timeoutS) || timeoutS <= 0)
      throw invalidOption('timeout', argv.timeout, 'use a number of seconds above 0');
    const env = process.env;
    const checks = await runDoctor(
      {
        job: argv.job !== false,
        executor: argv.executor,
        probe: {
          parent: path.resolve(argv['run-dir'] ?? 'runs'),
          timeoutS,
          partition: argv.partition ?? (env.TRACK_LAUNCH_PARTITION || undefined),
          account: argv.account ?? (env.TRACK_LAUNCH_ACCOUNT || undefined),
          qos: argv.qos ?? (env.TRACK_LAUNCH_QOS || undefined),
        },
      },
      (group) => {
        if (!argv.json) process.stdout.write(group.map((c) => formatCheck(c)).join('\n') + '\n');
      },
    );
    if (argv.json) printJson({ ok: !checks.some((c) => c.verdict === 'FAIL'), checks });
    else process.stdout.write(`doctor: ${summary(checks)}\n`);
    process.exitCode = doctorExitCode(checks);
  },
};
