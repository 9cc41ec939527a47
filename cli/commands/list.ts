// track-launch list: recent jobs from the index of submitted jobs, newest first.
import { CommandModule } from 'yargs';
import { jobIndexFile } from '../../core';
import { listJobs } from '../list/collect';
import { nameMatcher, parseLimit, parseStates } from '../list/filter';
import { formatJobTable } from '../list/format';
import { printJson } from '../output';

type Args = { state?: string; name?: string; limit?: number; refresh?: boolean; json?: boolean };

export const listCommand: CommandModule<object, Args> = {
  command: 'list',
  aliases: ['ls'],
  describe: 'List recent jobs: id, name, state, nodes, start, run directory, MLflow link',
  builder: (y) =>
    y
      .option('state', {
        type: 'string',
        describe: 'Only jobs in these states (comma-separated: running,failed; GONE: run dir removed)',
      })
      .option('name', {
        type: 'string',
        describe: 'Only jobs whose name contains this, or matches this glob',
      })
      .option('limit', { alias: 'n', type: 'number', default: 20, describe: 'At most this many jobs' })
      .option('refresh', {
        type: 'boolean',
        describe: 'Ask Slurm for the state of jobs not known to have ended (one call per job)',
      })
      .example('$0 list', 'the 20 newest jobs')
      .example("$0 list --state running,pending --name 'luna-*'", 'filtered')
      .example('$0 list --refresh --json', 'current states, as JSON') as never,
  handler: async (argv) => {
    const { rows, malformed } = await listJobs({
      states: parseStates(argv.state),
      nameMatches: nameMatcher(argv.name),
      limit: parseLimit(argv.limit ?? 20),
      refresh: argv.refresh === true,
    });
    if (malformed > 0)
      process.stderr.write(
        `track-launch: warning: ${malformed} line(s) of ${jobIndexFile()} are not job entries; skipped\n`,
      );
    if (argv.json) printJson({ index: jobIndexFile(), jobs: rows });
    else process.stdout.write(formatJobTable(rows, process.cwd()) + '\n');
  },
};
