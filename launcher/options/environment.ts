// The Environment options of `submit`: what each rank runs in (modules, container, variables, data).
import * as path from 'path';
import { invalidOption } from '../../core';
import { quote } from '../shell/quote';
import { keyValues, list, noControl, str, text } from './parse-values';
import { specOption } from './types';

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
const MODULE_RULE = 'a module name without spaces, e.g. GCC/11.3.0';
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
    record: { field: 'modules', value: (s) => s.modules },
  }),
  container: specOption({
    type: 'string',
    group,
    help: 'Run each rank in this Apptainer/Singularity image (.sif)',
    env: true,
    parse: text(),
    record: { field: 'container', value: (s) => s.container?.image },
    // --nv and --bind travel with the image: they mean nothing without it.
    bootstrap: {
      flags: ['--container', '--nv', '--bind'],
      slot: 9,
      args: (s) =>
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
    help: 'Set KEY=VALUE for every rank (repeatable)',
    parse: (v, flag, ctx) => {
      const env = keyValues(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a shell variable name')(v, flag, ctx);
      const reserved = env.find(([k]) => RESERVED_ENV.includes(k));
      if (reserved)
        throw invalidOption(
          flag,
          reserved[0],
          `${RESERVED_ENV.join(', ')} are set by track-launch for each rank`,
        );
      return env;
    },
    // Names only: the values may be secret.
    record: { field: 'env_keys', value: (s) => s.env.map(([k]) => k) },
  }),
  // Rendered as given, after the #SBATCH lines of the declared options.
  sbatch: specOption({
    type: 'list',
    group,
    help: 'Pass a raw sbatch option, e.g. --sbatch=--mail-type=END (repeatable)',
    parse: (v, flag) =>
      list(v).map((o) => {
        const s = String(o);
        if (!/^-/.test(s) || !noControl(s))
          throw invalidOption(flag, s, 'give one sbatch option per --sbatch, starting with -, on one line');
        if (/^(-o|-e|--output|--error)\b/.test(s))
          throw invalidOption(
            flag,
            s,
            'the job output goes to <run-dir>/logs/job.out; per-rank logs are in <run-dir>/logs',
          );
        return s;
      }),
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
      args: (s) => (s.stage ? [`--stage ${quote(path.basename(s.stage))}`] : []),
    },
  }),
};
