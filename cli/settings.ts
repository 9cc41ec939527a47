// Where option values come from, highest first: command-line flags, then TRACK_LAUNCH_<OPTION>
// environment variables (also from ./.env), then the project config file, then defaults.
import * as fs from 'fs';
import * as path from 'path';
import * as dotenv from 'dotenv';
import { registerSecret, TrackLaunchError } from '../core';
import { submitFlags } from './commands/submit-options';

export const CONFIG_FILE = 'track-launch.config.json';

/** The precedence, as `--help` says it (the top level and submit). */
export const SETTINGS_HELP =
  'Settings, highest precedence first: command-line flags; TRACK_LAUNCH_<OPTION> environment variables ' +
  '(e.g. TRACK_LAUNCH_PARTITION=gpu; single-valued options such as nodes, time, partition, account, name), also ' +
  'read from ./.env; the project config file ./track-launch.config.json (or --config FILE: a JSON object of any ' +
  'option names, lists included, e.g. {"partition": "gpu", "module": ["cuda/12"]}); then the defaults.';

/** Options that may come from the environment: those whose declaration says `env` (single values;
 *  lists and on/off flags come from the config file or the command line). */
export const ENV_OPTIONS: string[] = submitFlags()
  .filter(([, decl]) => decl.env)
  .map(([flag]) => flag);

const SECRET_KEY = /PASSWORD|TOKEN|SECRET|CREDENTIAL|(^|_)KEY$/i;

/** Load ./.env into process.env (never overriding what is set) and register secret-looking values. */
export function loadDotenv(cwd: string, env: NodeJS.ProcessEnv = process.env): void {
  const file = path.join(cwd, '.env');
  if (fs.existsSync(file)) {
    const parsed = dotenv.parse(fs.readFileSync(file));
    for (const [k, v] of Object.entries(parsed)) {
      registerSecret(v);
      if (env[k] === undefined) env[k] = v;
    }
  }
  for (const [k, v] of Object.entries(env)) if (SECRET_KEY.test(k)) registerSecret(v);
}

export function envDefaults(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of ENV_OPTIONS) {
    const v = env[`TRACK_LAUNCH_${o.toUpperCase().replace(/-/g, '_')}`];
    if (v !== undefined && v !== '') out[o] = v;
  }
  return out;
}

export function readConfigFile(file: string | undefined, cwd: string): Record<string, unknown> {
  const f = file ? path.resolve(cwd, file) : path.join(cwd, CONFIG_FILE);
  if (!fs.existsSync(f)) {
    if (file) throw new TrackLaunchError('NOT_FOUND', `--config: ${f} does not exist`);
    return {};
  }
  try {
    const data = JSON.parse(fs.readFileSync(f, 'utf8')) as unknown;
    if (!data || typeof data !== 'object' || Array.isArray(data)) throw new Error('not a JSON object');
    return data as Record<string, unknown>;
  } catch (e) {
    throw new TrackLaunchError(
      'INVALID_SPEC',
      `--config: ${f} is not a JSON object of option names and values (${(e as Error).message})`,
    );
  }
}

/** Config-file values overridden by environment values; flags override both later in yargs. */
export function settingsDefaults(
  configFile: string | undefined,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Record<string, unknown> {
  return { ...readConfigFile(configFile, cwd), ...envDefaults(env) };
}
