// Raw options (flags, config, environment) -> a validated JobSpec. Pure: the caller passes the
// working directory and the time; every refusal names the option, the value and what is allowed.
// Each option is parsed by its declaration (../options/registry.ts); here are the command, the
// defaults that depend on other options, and the checks that join options.
import * as path from 'path';
import { invalidOption, TrackLaunchError } from '../../core';
import { list } from '../options/parse-values';
import { parseOptions, RawSubmitOptions } from '../options/registry';
import { ParseContext } from '../options/types';
import { JobSpec } from './types';

export type { RawSubmitOptions };

export interface ValidationContext extends ParseContext {
  now: Date;
}

export function validateSubmit(raw: RawSubmitOptions, ctx: ValidationContext): JobSpec {
  const command = parseCommand(raw.command);
  const o = parseOptions(raw, ctx);
  const name = o.name ?? defaultName(command);
  const gpusPerNode = o.gpusPerNode;
  const launcher = o.launcher;
  const backend = o.backend ?? (gpusPerNode > 0 ? 'nccl' : 'gloo');
  if (backend === 'mpi' && launcher !== 'mpiexec') {
    throw invalidOption(
      'backend',
      backend,
      'the mpi backend needs --launcher mpiexec (MPI must start the ranks)',
    );
  }
  if (o.masterIface && o.masterCidr)
    throw invalidOption('master-cidr', o.masterCidr, 'give either --master-iface or --master-cidr, not both');
  if (o.bind.length && !o.container) throw invalidOption('bind', o.bind[0], '--bind needs --container');
  if (o.requeue && !o.signal)
    throw invalidOption(
      'requeue',
      true,
      '--requeue needs --signal SIG[@SECONDS] (the warning that triggers it)',
    );
  return {
    name,
    nodes: o.nodes,
    tasksPerNode: o.tasksPerNode ?? (gpusPerNode > 0 ? gpusPerNode : 1),
    gpusPerNode,
    cpusPerTask: o.cpusPerTask,
    mem: o.mem,
    time: o.time,
    partition: o.partition,
    account: o.account,
    qos: o.qos,
    constraint: o.constraint,
    exclusive: o.exclusive,
    runDir: runDir(o.runDir, name, ctx),
    modules: o.module,
    container: o.container ? { image: o.container, binds: o.bind, nv: o.nv ?? gpusPerNode > 0 } : undefined,
    env: o.env,
    sbatchOptions: o.sbatch,
    launcher,
    backend,
    masterIface: o.masterIface,
    masterCidr: o.masterCidr,
    rendezvousTimeout: o.rendezvousTimeout,
    command,
    stage: o.stage,
    signal: o.signal,
    requeue: o.requeue,
    sampleInterval: o.sampleInterval,
    experiment: o.experiment,
    metricsFormat: o.metricsFormat,
    params: o.param,
  };
}

function parseCommand(raw: unknown): string[] {
  const command = list(raw).map(String);
  if (command.length === 0 || command[0] === '') {
    throw new TrackLaunchError(
      'USAGE',
      'no command to run: give it after --, e.g. track-launch submit --nodes 3 -- python3 train.py',
    );
  }
  const nul = command.find((a) => a.includes('\0'));
  if (nul !== undefined) throw invalidOption('command', nul, 'arguments cannot contain NUL bytes');
  return command;
}

/** The absolute run directory: as given, else ./runs/<name>-<time>. */
function runDir(given: string | undefined, name: string, ctx: ValidationContext): string {
  const raw = given ?? path.join('runs', `${name}-${stamp(ctx.now)}`);
  const dir = path.resolve(ctx.cwd, raw);
  if (dir.includes('%'))
    throw invalidOption('run-dir', raw, "a path without '%' (Slurm reads % in output paths as a pattern)");
  return dir;
}

/** A job name from the command: "python3 train.py" -> "train". */
function defaultName(command: string[]): string {
  const script = command.find((a) => /\.(py|sh)$/.test(a)) ?? command[0];
  const base = path
    .basename(script)
    .replace(/\.(py|sh)$/, '')
    .replace(/[^A-Za-z0-9_.+-]/g, '_');
  return (base || 'job').slice(0, 64);
}

/** 2026-12-02T10:11:12Z -> 20261202-101112 */
const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
