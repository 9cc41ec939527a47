// The shape of one submit option, declared once (./registry.ts), as torchx's runopts declares a
// scheduler's options: the CLI flags, the TRACK_LAUNCH_* settings, validation, the #SBATCH lines,
// the job record and the rank bootstrap's arguments are all read from these declarations.
import type { JobRecord } from '../../core';
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
}

/** Raw value (undefined when not given) -> the option's value, or an invalidOption error. Pure. */
export type Parse<T> = (value: unknown, flag: string, ctx: ParseContext) => T;

/** An option of the job itself: it reaches the JobSpec, and from there the script and the record. */
export interface SpecOptionDecl<T> extends FlagDecl {
  parse: Parse<T>;
  /** The #SBATCH line it renders: `--directive=value`, a bare `--directive` for '', none for undefined. */
  sbatch?: { directive: string; value: (spec: JobSpec) => string | undefined };
  /** The field of job.json's `spec` it is recorded as. */
  record?: { field: keyof JobRecord['spec']; value: (spec: JobSpec) => unknown };
  /** The rank bootstrap's arguments it becomes (sbatch/rank-bootstrap.sh must accept every flag in
   *  `flags`); `slot` orders them on the command line, so that rendered scripts stay the same. */
  bootstrap?: { flags: readonly string[]; slot: number; args: (spec: JobSpec) => string[] };
}

export const specOption = <T>(decl: SpecOptionDecl<T>): SpecOptionDecl<T> => decl;

/** Declarations are keyed as yargs camel-cases the flag: tasksPerNode is --tasks-per-node. */
export const flagName = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
