// Every option of `submit` that describes the job, declared once, in the order `submit --help`
// shows them. The CLI flags, the TRACK_LAUNCH_* settings, the JobSpec type and its validation, the
// #SBATCH lines, the job record and the rank bootstrap's arguments are derived from here.
import type { JobSpec } from '../spec/types';
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

/** [job.json field, its type] of an option that is recorded: its JobSpec type, or its `value`'s. */
type Recorded<K extends SubmitOptionKey> =
  (typeof SUBMIT_OPTIONS)[K] extends SpecOptionDecl<infer _, infer F, infer V>
    ? [F, [V] extends [never] ? JobSpec[K & keyof JobSpec] : V]
    : never;

/** The fields of job.json's `spec` that the declarations record (core types those other parts read). */
export type RecordedSpec = { [K in SubmitOptionKey as Recorded<K>[0]]: Recorded<K>[1] };

/** The declarations in order, as [key, declaration]. */
export const submitOptionEntries = (): Array<[SubmitOptionKey, SpecOptionDecl<unknown>]> =>
  Object.entries(SUBMIT_OPTIONS) as Array<[SubmitOptionKey, SpecOptionDecl<unknown>]>;

/** Every option through its parser, in help order: the first bad value is the one refused. */
export function parseOptions(raw: RawSubmitOptions, ctx: ParseContext): ParsedOptions {
  const parsed: Partial<Record<SubmitOptionKey, unknown>> = {};
  const full = { ...ctx, sbatchOwner };
  for (const [key, decl] of submitOptionEntries()) parsed[key] = decl.parse(raw[key], flagName(key), full);
  return parsed as ParsedOptions;
}

/** "use --partition (-p)" for the directive of a declared option: --sbatch may not set it too. */
function sbatchOwner(directive: string): string | undefined {
  const found = submitOptionEntries().find(
    ([, { sbatch: d }]) => d !== undefined && (typeof d === 'string' ? d : d.directive) === directive,
  );
  if (!found) return undefined;
  const aliases = [found[1].alias ?? []].flat().map((a) => (a.length === 1 ? `-${a}` : `--${a}`));
  return `use --${flagName(found[0])}${aliases.length ? ` (${aliases.join(', ')})` : ''}`;
}

/** An option's own value in the spec (an option whose value joins others has none of its own). */
export const ownValue = (spec: JobSpec, key: SubmitOptionKey): unknown =>
  (spec as unknown as Record<string, unknown>)[key];
