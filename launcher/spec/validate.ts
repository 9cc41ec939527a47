// Raw options (flags, config, environment) -> a validated JobSpec. Pure: the caller passes the
// working directory and the time; every refusal names the option, the value and what is allowed.
// Each option is parsed by its declaration (../options/registry.ts) and kept under its key; here are
// the command, the defaults that depend on other options, and the checks that join options.
import * as path from 'path';
import { invalidOption, TrackLaunchError } from '../../core';
import { list } from '../options/parse-values';
import { hostNames } from '../options/placement';
import { gresGpus } from '../options/resources';
import { parseOptions, RawSubmitOptions } from '../options/registry';
import { ParseContext } from '../options/types';
import { checkCommand, CommandProbes } from './check-command';
import { arrayOfSize, ArraySpec } from './array-spec';
import { parseParamGrid } from './param-grid';
import { JobSpec } from './types';

export type { RawSubmitOptions };

export interface ValidationContext extends ParseContext {
  now: Date;
  /** Is this variable set in the submitting shell? (--env NAME passes it through.) */
  isSet?: (name: string) => boolean;
  /** Given: --stage, the command's program and its script are checked before anything queues
   *  (not with --no-check). */
  commandProbes?: Omit<CommandProbes, 'cwd'>;
  /** Reads a --param-grid file (at most MAX_GRID_BYTES); throws when it cannot. */
  readParamGrid?: (file: string) => string;
  /** The tracking server the job is sent to ('' when none: offline); --track's default depends on it. */
  trackingUri?: string;
}

export function validateSubmit(raw: RawSubmitOptions, ctx: ValidationContext): JobSpec {
  const command = parseCommand(raw.command);
  const o = parseOptions(raw, ctx);
  const name = o.name ?? defaultName(command);
  const gpusPerNode = gpusFor(o.gpusPerNode, o.gres);
  checkNodeLists(o.nodelist, o.exclude, o.nodes);
  const backend = o.backend ?? (gpusPerNode > 0 ? 'nccl' : 'gloo');
  if (backend === 'mpi' && o.launcher !== 'mpiexec') {
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
  const unset = o.env.find((e) => !e.value && ctx.isSet && !ctx.isSet(e.name));
  if (unset)
    throw invalidOption('env', unset.name, 'it is not set in this shell: give KEY=VALUE, or export it first');
  if (o.track && o.track !== 'none' && ctx.trackingUri === '')
    throw invalidOption(
      'track',
      o.track,
      'there is no tracking server to send to: set MLFLOW_TRACKING_URI (offline: leave --track out and run `track-launch sync` later)',
    );
  if (o.mlflowEnv && ctx.trackingUri === '')
    throw invalidOption(
      'mlflow-env',
      true,
      "the job's runs are made at submit: set MLFLOW_TRACKING_URI to a server the compute nodes reach",
    );
  const { bind, nv, container, paramGrid, ...own } = o;
  const spec: JobSpec = {
    ...own,
    track: o.track ?? (ctx.trackingUri ? 'login' : 'none'),
    name,
    tasksPerNode: o.tasksPerNode ?? (gpusPerNode > 0 ? gpusPerNode : 1),
    gpusPerNode,
    backend,
    runDir: runDir(o.runDir, name, ctx),
    ...arrayOf(o.array, paramGrid, ctx),
    container: container ? { image: container, binds: bind, nv: nv ?? gpusPerNode > 0 } : undefined,
    command,
  };
  if (ctx.commandProbes) checkOnDisk(spec, { ...ctx.commandProbes, cwd: ctx.cwd });
  return spec;
}

/** --array and --param-grid: the grid's n sets make the array 0-(n-1) unless --array is given,
 *  and then every task needs a set. */
function arrayOf(
  array: ArraySpec | undefined,
  gridFile: string | undefined,
  ctx: ValidationContext,
): Pick<JobSpec, 'array' | 'paramGrid'> {
  if (gridFile === undefined) return array ? { array } : {};
  const file = path.resolve(ctx.cwd, gridFile);
  if (!ctx.readParamGrid) throw invalidOption('param-grid', gridFile, 'the file could not be read here');
  const { sets, raw } = parseParamGrid(gridFile, ctx.readParamGrid(file), ctx);
  const beyond = array?.tasks.find((t) => t >= sets.length);
  if (array && beyond !== undefined)
    throw invalidOption(
      'array',
      array.text,
      `task ${beyond} has no parameter set: ${gridFile} has ${sets.length} (tasks 0-${sets.length - 1}); leave out --array to run them all`,
    );
  return { array: array ?? arrayOfSize(sets.length), paramGrid: { file, sets, raw } };
}

/** After every value is valid: what must exist here before the job queues (--stage, the command). */
function checkOnDisk(spec: JobSpec, probes: CommandProbes): void {
  if (spec.stage && !probes.exists(spec.stage))
    throw invalidOption('stage', spec.stage, 'give a file or directory that exists on the shared filesystem');
  checkCommand(spec.command, {
    ...probes,
    container: spec.container !== undefined,
    modules: spec.module.length > 0,
  });
}

/** --gpus-per-node, else the GPUs --gres asks for; the two must agree when both are given. */
function gpusFor(given: number | undefined, gres: string | undefined): number {
  const fromGres = gresGpus(gres);
  if (given !== undefined && fromGres > 0 && given !== fromGres)
    throw invalidOption(
      'gres',
      gres,
      `it asks for ${fromGres} GPU(s) per node and --gpus-per-node for ${given}: give one of them, or the same count`,
    );
  return given ?? fromGres;
}

/** A node list names at most --nodes nodes (Slurm would allocate every one of them: a different
 *  world size) and none that --exclude excludes. */
function checkNodeLists(nodelist: string | undefined, exclude: string | undefined, nodes: number): void {
  const want = nodelist ? (hostNames(nodelist) ?? []) : [];
  if (want.length > nodes)
    throw invalidOption(
      'nodelist',
      nodelist,
      `it names ${want.length} nodes and --nodes is ${nodes}: Slurm would allocate all of them; give --nodes ${want.length}`,
    );
  const out = new Set(exclude ? (hostNames(exclude) ?? []) : []);
  const both = want.filter((n) => out.has(n));
  if (both.length)
    throw invalidOption('exclude', exclude, `it excludes ${both.join(', ')}, which --nodelist asks for`);
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
