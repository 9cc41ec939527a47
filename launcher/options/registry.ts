// Every option of `submit` that describes the job, declared once, in the order `submit --help`
// shows them. The CLI flags, the TRACK_LAUNCH_* settings, the validation, the #SBATCH lines, the
// job record and the rank bootstrap's arguments are derived from here.
import { DISCOVERY_OPTIONS } from './discovery';
import { ENVIRONMENT_OPTIONS } from './environment';
import { JOB_OPTIONS } from './job';
import { PLACEMENT_OPTIONS } from './placement';
import { RESOURCE_OPTIONS } from './resources';
import { TRACKING_OPTIONS } from './tracking';
import { flagName, ParseContext, SpecOptionDecl } from './types';

export const SUBMIT_OPTIONS = {
  ...RESOURCE_OPTIONS,
  ...PLACEMENT_OPTIONS,
  ...JOB_OPTIONS,
  ...ENVIRONMENT_OPTIONS,
  ...DISCOVERY_OPTIONS,
  ...TRACKING_OPTIONS,
};

export type SubmitOptionKey = keyof typeof SUBMIT_OPTIONS;

/** Option values as given (flags, environment, config file), keyed as yargs camel-cases them, and
 *  the command to run. */
export type RawSubmitOptions = { [K in SubmitOptionKey | 'command']?: unknown };

/** Each option's value after its own parser: before the defaults and checks that join options. */
export type ParsedOptions = { [K in SubmitOptionKey]: ReturnType<(typeof SUBMIT_OPTIONS)[K]['parse']> };

/** The declarations in order, as [key, declaration]. */
export const submitOptionEntries = (): Array<[SubmitOptionKey, SpecOptionDecl<unknown>]> =>
  Object.entries(SUBMIT_OPTIONS) as Array<[SubmitOptionKey, SpecOptionDecl<unknown>]>;

/** Every option through its parser, in help order: the first bad value is the one refused. */
export function parseOptions(raw: RawSubmitOptions, ctx: ParseContext): ParsedOptions {
  const parsed: Partial<Record<SubmitOptionKey, unknown>> = {};
  for (const [key, decl] of submitOptionEntries()) parsed[key] = decl.parse(raw[key], flagName(key), ctx);
  return parsed as ParsedOptions;
}
