// track-launch command line: yargs wiring and the single top-level error handler.
import yargs from 'yargs';
import { packageVersion, TrackLaunchError } from '../core';
import { cancelCommand } from './commands/cancel';
import { clusterCommand } from './commands/cluster';
import { dataCommand } from './commands/data';
import { doctorCommand } from './commands/doctor';
import { ingestCommand } from './commands/ingest';
import { syncCommand } from './commands/sync';
import { listCommand } from './commands/list';
import { logsCommand } from './commands/logs';
import { reportCommand } from './commands/report';
import { statusCommand } from './commands/status';
import { submitCommand } from './commands/submit';
import { checkBooleanFlags } from './boolean-flags';
import { endOnClosedOutput, reportError } from './output';
import { commandOf, CONFIG_COMMANDS, DOTENV_COMMANDS, envDefaults, loadDotenv } from './settings';
import { ignoredEnvWarnings, readConfigFile, registerEnvSecrets, SETTINGS_HELP } from './settings';

const EPILOG = [
  SETTINGS_HELP,
  'Tracking: MLFLOW_TRACKING_URI (unset: offline, sync later), MLFLOW_EXPERIMENT_NAME, MLFLOW_TRACKING_USERNAME / _PASSWORD or _TOKEN.',
].join('\n\n');

export async function main(args: string[]): Promise<void> {
  const json = args.includes('--json');
  endOnClosedOutput();
  try {
    const cwd = process.cwd();
    checkBooleanFlags(args);
    // .env and the config file only for the commands that use them: a broken config file must not
    // stop `status` or `logs`, and a project's .env sets only TRACK_LAUNCH_* and MLFLOW_*.
    const command = commandOf(args);
    registerEnvSecrets();
    if (command && DOTENV_COMMANDS.has(command)) loadDotenv(cwd);
    const cfgIdx = args.indexOf('--config');
    const configFile = cfgIdx >= 0 ? args[cfgIdx + 1] : args.find((a) => a.startsWith('--config='))?.slice(9);
    // Config-file values overridden by environment values; flags override both in yargs.
    const settings =
      command && CONFIG_COMMANDS.has(command)
        ? { ...readConfigFile(configFile, cwd), ...envDefaults(process.env) }
        : {};
    if (command && CONFIG_COMMANDS.has(command))
      for (const w of ignoredEnvWarnings(process.env)) process.stderr.write(`track-launch: warning: ${w}\n`);
    await yargs(args)
      .scriptName('track-launch')
      .parserConfiguration({ 'populate--': true, 'parse-positional-numbers': false })
      .option('config', { type: 'string', global: true, describe: 'Project config file (JSON)' })
      .option('json', { type: 'boolean', global: true, describe: 'Machine-readable output' })
      // Settings apply to submit only: other commands would refuse their keys as unknown options.
      .command(submitCommand(settings))
      .command(listCommand)
      .command(statusCommand)
      .command(logsCommand)
      .command(cancelCommand)
      .command(ingestCommand)
      .command(syncCommand)
      .command(reportCommand)
      .command(clusterCommand)
      .command(dataCommand)
      .command(doctorCommand)
      .completion(
        'completion',
        'Print a shell completion script: bash (`source <(track-launch completion)`), or zsh when run from zsh (or with SHELL=zsh)',
      )
      .example('$0 submit -N 3 --follow -- python3 examples/polynomial/train.py', 'run on 3 nodes and wait')
      .example('$0 status 1234', 'state, ranks, hosts, failed rank')
      .example('$0 logs 1234 --rank 1 -f', 'follow rank 1')
      .example(
        '$0 data shard --candidates candidates.csv --world-size 12 --out shards',
        'LUNA16 shards per rank',
      )
      .demandCommand(
        1,
        'Give a command: submit, list, status, logs, cancel, ingest, sync, report, cluster, data, doctor or completion (see --help).',
      )
      .strict()
      .recommendCommands()
      .epilog(EPILOG)
      .version(packageVersion())
      .wrap(Math.min(110, process.stdout.columns || 100))
      .fail((msg, err) => {
        if (err) throw err;
        throw new TrackLaunchError('USAGE', msg, {
          hint: 'See `track-launch --help` or `track-launch <command> --help`.',
        });
      })
      .parseAsync();
  } catch (err) {
    process.exitCode = reportError(err, json);
  }
}
