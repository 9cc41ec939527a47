// The Environment options of `submit`: what each rank runs in (modules, container, variables, data).
import * as path from 'path';
import { compileGlob, GlobPartError, invalidOption } from '../../core';
import { quote } from '../shell/quote';
import { SecretValue } from '../spec/secret';
import type { EnvVar } from '../spec/types';
import { list, str, text } from './parse-values';
import { sbatchPassthrough } from './sbatch-passthrough';
import { Parse, specOption } from './types';

/** Variables the bootstrap sets for every rank; a user value would be overwritten, so it is refused. */
const RESERVED_ENV = [
  'RANK',
  'WORLD_SIZE',
  'LOCAL_RANK',
  'LOCAL_WORLD_SIZE',
  'NODE_RANK',
  'MASTER_ADDR',
  'MASTER_PORT',
];
/** Slurm's own and track-launch's: the bootstrap and the tracking read them (SLURM_JOB_ID names the
 *  rendezvous file, TRACK_LAUNCH_RUN_DIR the run directory). */
const RESERVED_PREFIXES = ['SLURM_', 'SLURMD_', 'TRACK_LAUNCH_'];
const ENV_RULE = "use KEY=VALUE (or KEY alone to pass this shell's value) where KEY is a shell variable name";

/** --env KEY=VALUE (the value kept secret: never written in the script) or KEY (passed through). */
const parseEnv: Parse<EnvVar[]> = (v, flag) =>
  list(v).map((item) => {
    const s = typeof item === 'string' ? item : String(item);
    const eq = s.indexOf('=');
    const name = eq < 0 ? s : s.slice(0, eq);
    // Not echoed: the value may be a secret (only the name is shown).
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || s.includes('\0')) throw invalidOption(flag, name, ENV_RULE);
    if (RESERVED_ENV.includes(name))
      throw invalidOption(flag, name, `${RESERVED_ENV.join(', ')} are set by track-launch for each rank`);
    const prefix = RESERVED_PREFIXES.find((p) => name.startsWith(p));
    if (prefix)
      throw invalidOption(
        flag,
        name,
        `${prefix}* variables belong to ${prefix === 'TRACK_LAUNCH_' ? 'track-launch' : 'Slurm'} and are set for each rank`,
      );
    return eq < 0 ? { name } : { name, value: new SecretValue(s.slice(eq + 1)) };
  });
const MODULE_RULE = 'a module name without spaces, e.g. GCC/11.3.0';
/** --artifact PATH_OR_GLOB, repeatable: each glob compiled now by the job-end matcher's own compiler,
 *  so that a pattern it cannot match is refused here rather than when the job has ended. */
const parseArtifacts: Parse<string[]> = (v, flag) =>
  list(v).map((a) => {
    const s = typeof a === 'string' ? a : String(a);
    if (s === '' || s.includes('\0'))
      throw invalidOption(flag, s, 'give a path or glob, not empty, without NUL bytes');
    try {
      compileGlob(s);
    } catch (err) {
      if (err instanceof GlobPartError) throw invalidOption(flag, s, err.message);
      throw err;
    }
    return s;
  });

const group = 'Environment:';

export const ENVIRONMENT_OPTIONS = {
  module: specOption({
    type: 'list',
    group,
    help: '`module load` this before starting (repeatable)',
    parse: (v, flag) =>
      list(v).map((m) => {
        const s = str(flag, m, /^[^\s]+$/, MODULE_RULE);
        if (!s) throw invalidOption(flag, m, MODULE_RULE);
        return s;
      }),
    record: 'modules',
  }),
  container: specOption({
    type: 'string',
    group,
    help: 'Run each rank in this Apptainer/Singularity image (.sif)',
    env: true,
    parse: text(),
    record: { field: 'container', value: (s): string | undefined => s.container?.image },
    // --nv and --bind travel with the image: they mean nothing without it.
    bootstrap: {
      flags: ['--container', '--nv', '--bind'],
      slot: 9,
      args: (s): string[] =>
        s.container
          ? [
              `--container ${quote(s.container.image)}`,
              ...(s.container.nv ? ['--nv'] : []),
              ...s.container.binds.map((b) => `--bind ${quote(b)}`),
            ]
          : [],
    },
  }),
  bind: specOption({
    type: 'list',
    group,
    help: 'Container bind mount SRC[:DST[:OPTS]] (repeatable)',
    parse: (v, flag, ctx) => list(v).map((b) => text()(b, flag, ctx) ?? ''),
  }),
  nv: specOption({
    type: 'boolean',
    group,
    help: 'Pass --nv to the container (default: on when GPUs are requested)',
    parse: (v) => (v === undefined ? undefined : Boolean(v)), // the default: validateSubmit
  }),
  env: specOption({
    type: 'list',
    group,
    help: 'Set KEY=VALUE for every rank, or pass KEY from this shell (repeatable); values are never written to the script (MLflow credentials reach the ranks only this way)',
    parse: parseEnv,
    // Names only: the values may be secret.
    record: { field: 'env_keys', value: (s): string[] => s.env.map((e) => e.name) },
  }),
  // Read as sbatch reads #SBATCH lines; rendered in full after the declared options' lines.
  sbatch: specOption({
    type: 'list',
    group,
    help: 'Pass one more sbatch option, e.g. --sbatch=--mail-type=END (repeatable; options track-launch sets are refused with the option to use)',
    parse: sbatchPassthrough,
  }),
  artifact: specOption({
    type: 'list',
    group,
    help: 'A file or glob the job writes, relative to the submit or run directory, attached to the MLflow parent run at the end (repeatable)',
    parse: parseArtifacts,
    record: {
      field: 'artifacts',
      value: (s): string[] | undefined => (s.artifact.length ? s.artifact : undefined),
    },
  }),
  stage: specOption({
    type: 'string',
    group,
    help: 'Copy this file or directory to node-local storage first; ranks find it in $TRACK_LAUNCH_DATA_DIR',
    parse: (v, flag, ctx) => {
      const stage = str(flag, v);
      return stage === undefined ? undefined : path.resolve(ctx.cwd, stage);
    },
    bootstrap: {
      flags: ['--stage'],
      slot: 6,
      args: (s): string[] => (s.stage ? [`--stage ${quote(path.basename(s.stage))}`] : []),
    },
  }),
};
