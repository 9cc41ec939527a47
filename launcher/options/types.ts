// The shape of one submit option, declared once (./registry.ts), as torchx's runopts declares a
// scheduler's options.
import type { JobSpec } from '../spec/types';

/** The sections of `submit --help`, in the order they are shown. */
export type HelpGroup = 'Resources:' | 'Job:' | 'Environment:' | 'Discovery:' | 'Tracking:' | 'Submission:';

/** How an option looks on the command line and in the settings: enough to declare it to yargs. */
export interface FlagDecl {
  /** 'string' for numbers too: the parser reads them and shows a bad value as given (yargs would
   *  turn "abc" into NaN). 'list' is a repeatable string; 'choice' needs `choices`. */
  type: 'string' | 'boolean' | 'list' | 'choice';
  choices?: readonly string[];
  /** Other spellings: a short letter, and the name sbatch users type where it differs. */
  alias?: string | readonly string[];
  group: HelpGroup;
  help: string;
  /** A default yargs fills in. Job options take theirs in `parse`, below the settings. */
  default?: string | boolean;
  /** Also read from TRACK_LAUNCH_<FLAG> (and ./.env): single values only, and no name a job exports
   *  itself (TRACK_LAUNCH_RUN_DIR, _BACKEND, _SIGNAL, _SAMPLE_INTERVAL, ...). Every option is also
   *  a key of the config file. */
  env?: true;
}

/** What parsing may depend on besides the value: no clock, no environment. */
export interface ParseContext {
  cwd: string;
  /** Throws when --metrics-format names no format the tracking plugin reads (it owns the formats). */
  checkMetricsFormat?: (format: string) => void;
  /** Whether MLflow accepts a param key (the tracking plugin owns MLflow's naming rule). */
  isValidParamKey?: (key: string) => boolean;
  /** The longest param value MLflow stores (the tracking plugin owns MLflow's limits). */
  maxParamValue?: number;
  /** For an #SBATCH directive a declared option renders: what to use instead (parseOptions). */
  sbatchOwner?: (directive: string) => string | undefined;
}

/** Raw value (undefined when not given) -> the option's value, or an invalidOption error. Pure. */
export type Parse<T> = (value: unknown, flag: string, ctx: ParseContext) => T;

/** An option of the job: its parsed value is the JobSpec field of its key. A callback reading the spec
 *  states its return type (JobSpec is derived from these, and TypeScript infers no type in a cycle). */
export interface SpecOptionDecl<T, F extends string = string, V = unknown> extends FlagDecl {
  parse: Parse<T>;
  /** The #SBATCH line: a directive alone renders the option's own value (true: a bare
   *  `--directive`; false or undefined: none); `value` computes it ('' for bare, undefined for none). */
  sbatch?: string | { directive: string; value: (spec: JobSpec) => string | undefined };
  /** The field of job.json's `spec` it is recorded as: with the option's own value, or `value`'s. */
  record?: F | { field: F; value: (spec: JobSpec) => V };
  /** The rank bootstrap's arguments it becomes (sbatch/rank-bootstrap.sh must accept every flag in
   *  `flags`); `slot` orders them on the command line, so that rendered scripts stay the same. */
  bootstrap?: { flags: readonly string[]; slot: number; args: (spec: JobSpec) => string[] };
}

/** A declaration, with its record field's name and value type kept for RecordedSpec. */
export const specOption = <T, const F extends string = never, V = never>(
  decl: SpecOptionDecl<T, F, V>,
): SpecOptionDecl<T, F, V> => decl;

/** Declarations are keyed as yargs camel-cases the flag: tasksPerNode is --tasks-per-node. */
export const flagName = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
