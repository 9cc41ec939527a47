// Where option values come from, highest first: command-line flags, then TRACK_LAUNCH_<OPTION>
// environment variables (also from ./.env), then the project config file, then defaults.
import * as fs from 'fs';
import * as path from 'path';
import * as dotenv from 'dotenv';
import { registerSecret, TrackLaunchError } from '../core';
import { submitFlags } from './commands/submit-options';

export const CONFIG_FILE = 'track-launch.config.json';

/** Options that may come from the environment: those whose declaration says `env`. */
export const ENV_OPTIONS: string[] = submitFlags()
  .filter(([, decl]) => decl.env)
  .map(([flag]) => flag);

const envName = (flag: string) => `TRACK_LAUNCH_${flag.toUpperCase().replace(/-/g, '_')}`;

/** The precedence, as `--help` says it (the top level and submit). */
export const SETTINGS_HELP =
  'Settings, highest precedence first: command-line flags; TRACK_LAUNCH_<OPTION> environment variables ' +
  `(e.g. TRACK_LAUNCH_PARTITION=gpu), for these options only: ${ENV_OPTIONS.join(', ')}; also ` +
  'read from ./.env (which may set only TRACK_LAUNCH_* and MLFLOW_* variables); the project config file ./track-launch.config.json (or --config FILE: a JSON object of any ' +
  'option names, lists included, e.g. {"partition": "gpu", "module": ["cuda/12"]}); then the defaults.';

const SECRET_KEY = /PASSWORD|TOKEN|SECRET|CREDENTIAL|(^|_)KEY$/i;
/** What ./.env may set; not PATH, NODE_OPTIONS...: a project file must not change how programs start. */
export const DOTENV_VARIABLE = /^(TRACK_LAUNCH|MLFLOW)_[A-Z0-9_]+$/;

/** The commands that read ./.env, and the one that reads the config file. */
export const DOTENV_COMMANDS = new Set(['submit', 'ingest', 'sync', 'report', 'status', 'list', 'doctor']);
export const CONFIG_COMMANDS = new Set(['submit']);

/** The command a command line runs: its first word that is not an option (or an option's value). */
export function commandOf(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return undefined;
    if (a === '--config') i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

/** Register secret-looking values of the environment, so that no message shows them. */
export function registerEnvSecrets(env: NodeJS.ProcessEnv = process.env): void {
  for (const [k, v] of Object.entries(env)) if (SECRET_KEY.test(k)) registerSecret(v);
}

/** Load the TRACK_LAUNCH_* and MLFLOW_* variables of ./.env into env (never overriding what is set). */
export function loadDotenv(cwd: string, env: NodeJS.ProcessEnv = process.env): void {
  const file = path.join(cwd, '.env');
  if (fs.existsSync(file)) {
    const parsed = dotenv.parse(fs.readFileSync(file));
    for (const [k, v] of Object.entries(parsed)) {
      if (DOTENV_VARIABLE.test(k) && env[k] === undefined) env[k] = v;
    }
  }
  registerEnvSecrets(env);
}

export function envDefaults(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of ENV_OPTIONS) {
    const v = env[envName(o)];
    if (v !== undefined && v !== '') out[o] = v;
  }
  return out;
}

/** A warning for each TRACK_LAUNCH_<OPTION> set for an option that has no such setting (some are
 *  names the job exports to its ranks, as TRACK_LAUNCH_SIGNAL): ignored, and said, with what to use. */
export function ignoredEnvWarnings(env: NodeJS.ProcessEnv): string[] {
  return submitFlags()
    .filter(([flag, decl]) => !decl.env && env[envName(flag)] !== undefined && env[envName(flag)] !== '')
    .map(
      ([flag]) =>
        `${envName(flag)} is not a setting and is ignored (a job sets some such names for its ranks): use --${flag}, or "${flag}" in ${CONFIG_FILE}`,
    );
}

const CONFIG_HINT =
  'Fix the file (a JSON object such as {"partition": "gpu"}), point --config elsewhere, or move it away; only submit reads it.';

export function readConfigFile(file: string | undefined, cwd: string): Record<string, unknown> {
  const f = file ? path.resolve(cwd, file) : path.join(cwd, CONFIG_FILE);
  if (!fs.existsSync(f)) {
    if (file) throw new TrackLaunchError('NOT_FOUND', `--config: ${f} does not exist`, { hint: CONFIG_HINT });
    return {};
  }
  try {
    const data = JSON.parse(fs.readFileSync(f, 'utf8')) as unknown;
    if (!data || typeof data !== 'object' || Array.isArray(data)) throw new Error('not a JSON object');
    return data as Record<string, unknown>;
  } catch (e) {
    throw new TrackLaunchError(
      'INVALID_SPEC',
      `the config file ${f} is not a JSON object of option names and values (${(e as Error).message})`,
      { hint: CONFIG_HINT },
    );
  }
}
