// The options of `track-launch submit`: the job's options, declared once in the launcher
// (launcher/options/registry.ts), then the flags of the submission itself.
import { Argv, Options } from 'yargs';
import { FlagDecl, flagName, SUBMIT_OPTIONS } from '../../launcher';

/** Flags of the submission, not of the job: they never reach the job spec. */
export const SUBMISSION_FLAGS: Record<string, FlagDecl> = {
  executor: {
    type: 'choice',
    choices: ['slurm', 'local'],
    group: 'Submission:',
    help: 'slurm (sbatch) or local (ranks as processes here); default slurm where sbatch is on PATH',
    env: true,
  },
  check: {
    type: 'boolean',
    default: true,
    group: 'Submission:',
    help: "Check the request against the partition's nodes first (--no-check skips it, for clusters that hide their facts)",
  },
  dryRun: {
    type: 'boolean',
    group: 'Submission:',
    help: 'Print the plan (script and command) and submit nothing',
  },
  follow: {
    type: 'boolean',
    alias: 'f',
    group: 'Submission:',
    help: 'Wait for the job, show progress; exit 0 only if it completed',
  },
  poll: {
    type: 'string',
    default: '2',
    group: 'Submission:',
    help: "Seconds between state checks with --follow, and between the tracker's cycles (--follow's, the follower's): a longer one costs the tracker less CPU, as each cycle sends a request per rank with new points",
  },
};

/** Every flag of `submit` with its declaration, in help order: the job's, then the submission's. */
export const submitFlags = (): Array<[string, FlagDecl]> =>
  [...Object.entries(SUBMIT_OPTIONS), ...Object.entries(SUBMISSION_FLAGS)].map(([key, decl]) => [
    flagName(key),
    decl,
  ]);

export function submitOptions<T>(y: Argv<T>): Argv<T> {
  return submitFlags().reduce((argv, [flag, decl]) => argv.option(flag, yargsOption(decl)), y);
}

/** A declaration as yargs wants it; keys yargs would read even when undefined are left out. */
function yargsOption(decl: FlagDecl): Options {
  const o: Options = { group: decl.group, describe: decl.help };
  if (decl.alias !== undefined) o.alias = decl.alias;
  if (decl.default !== undefined) o.default = decl.default;
  if (decl.type === 'choice') o.choices = decl.choices;
  else if (decl.type === 'list') Object.assign(o, { type: 'string', array: true });
  else o.type = decl.type;
  return o;
}
