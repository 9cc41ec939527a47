// Raw options (flags, config, environment) -> a validated JobSpec. Pure: the caller passes the
// working directory and the time; every refusal names the option, the value and what is allowed.
import * as path from 'path';
import { invalidOption, TrackLaunchError } from '../../core';
import { parseSlurmMemoryMiB, parseSlurmTime, TIME_FORMATS } from './slurm-time';
import { BACKENDS, Backend, JobSpec, Launcher, LAUNCHERS } from './types';

export interface RawSubmitOptions {
  name?: unknown;
  nodes?: unknown;
  tasksPerNode?: unknown;
  gpusPerNode?: unknown;
  cpusPerTask?: unknown;
  mem?: unknown;
  time?: unknown;
  partition?: unknown;
  account?: unknown;
  qos?: unknown;
  constraint?: unknown;
  exclusive?: unknown;
  runDir?: unknown;
  module?: unknown;
  container?: unknown;
  bind?: unknown;
  nv?: unknown;
  env?: unknown;
  sbatch?: unknown;
  launcher?: unknown;
  backend?: unknown;
  masterIface?: unknown;
  masterCidr?: unknown;
  rendezvousTimeout?: unknown;
  experiment?: unknown;
  metricsFormat?: unknown;
  param?: unknown;
  command?: unknown;
  stage?: unknown;
  signal?: unknown;
  requeue?: unknown;
  sampleInterval?: unknown;
}

export interface ValidationContext {
  cwd: string;
  now: Date;
  /** Throws when --metrics-format names no format the tracking plugin reads (it owns the formats). */
  checkMetricsFormat?: (format: string) => void;
}

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
const SLURM_NAME = /^[A-Za-z0-9_.+-]+$/;
const NAME_RULE = 'use letters, digits and _ . + - (at most 128 characters)';

const list = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
const noControl = (s: string) => !/[\0\n\r]/.test(s);

function str(option: string, v: unknown, rule?: RegExp, allowed = 'a non-empty string'): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' && typeof v !== 'number') throw invalidOption(option, v, allowed);
  const s = String(v);
  if (!noControl(s) || (rule && !rule.test(s))) throw invalidOption(option, s, allowed);
  return s;
}

function int(option: string, v: unknown, min: number, max: number, dflt?: number): number | undefined {
  if (v === undefined || v === null || v === '') return dflt;
  const n = typeof v === 'number' ? v : /^\s*\d+\s*$/.test(String(v)) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw invalidOption(option, v, `use a whole number from ${min} to ${max}`);
  }
  return n;
}

function oneOf<T extends string>(option: string, v: unknown, allowed: readonly T[]): T | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw invalidOption(option, v, `use one of: ${allowed.join(', ')}`);
  }
  return v as T;
}

function keyValues(option: string, v: unknown, keyRule: RegExp, keyWords: string): Array<[string, string]> {
  return list(v).map((item) => {
    const s = typeof item === 'string' ? item : String(item);
    const eq = s.indexOf('=');
    const key = eq > 0 ? s.slice(0, eq) : '';
    if (!keyRule.test(key) || s.includes('\0'))
      throw invalidOption(option, s, `use KEY=VALUE where KEY is ${keyWords}`);
    return [key, s.slice(eq + 1)];
  });
}

export function validateSubmit(raw: RawSubmitOptions, ctx: ValidationContext): JobSpec {
  const command = list(raw.command).map(String);
  if (command.length === 0 || command[0] === '') {
    throw new TrackLaunchError(
      'USAGE',
      'no command to run: give it after --, e.g. track-launch submit --nodes 3 -- python3 train.py',
    );
  }
  const nul = command.find((a) => a.includes('\0'));
  if (nul !== undefined) throw invalidOption('command', nul, 'arguments cannot contain NUL bytes');

  const name = str('name', raw.name, SLURM_NAME, NAME_RULE) ?? defaultName(command);
  if (name.length > 128) throw invalidOption('name', name, NAME_RULE);
  const gpusPerNode = int('gpus-per-node', raw.gpusPerNode, 0, 64, 0)!;
  const nodes = int('nodes', raw.nodes, 1, 100000, 1)!;
  const tasksPerNode = int('tasks-per-node', raw.tasksPerNode, 1, 1024, gpusPerNode > 0 ? gpusPerNode : 1)!;
  const cpusPerTask = int('cpus-per-task', raw.cpusPerTask, 1, 4096);

  const mem = str('mem', raw.mem);
  if (mem !== undefined && parseSlurmMemoryMiB(mem) === undefined) {
    throw invalidOption(
      'mem',
      mem,
      'use a whole number with an optional K, M, G or T suffix (e.g. 4G, 16000M; default unit M)',
    );
  }
  const time = str('time', raw.time);
  if (time !== undefined && parseSlurmTime(time) === undefined)
    throw invalidOption('time', time, TIME_FORMATS);

  const launcher: Launcher = oneOf('launcher', raw.launcher, LAUNCHERS) ?? 'srun';
  const backend: Backend = oneOf('backend', raw.backend, BACKENDS) ?? (gpusPerNode > 0 ? 'nccl' : 'gloo');
  if (backend === 'mpi' && launcher !== 'mpiexec') {
    throw invalidOption(
      'backend',
      backend,
      'the mpi backend needs --launcher mpiexec (MPI must start the ranks)',
    );
  }

  const masterIface = str(
    'master-iface',
    raw.masterIface,
    /^[A-Za-z0-9_.:@-]{1,15}$/,
    'use a network interface name such as ib0 or eth0',
  );
  const masterCidr = str(
    'master-cidr',
    raw.masterCidr,
    /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$/,
    'use an IPv4 network such as 10.1.0.0/16',
  );
  if (masterCidr && !validCidr(masterCidr))
    throw invalidOption('master-cidr', masterCidr, 'use an IPv4 network such as 10.1.0.0/16');
  if (masterIface && masterCidr)
    throw invalidOption('master-cidr', masterCidr, 'give either --master-iface or --master-cidr, not both');

  const env = keyValues('env', raw.env, /^[A-Za-z_][A-Za-z0-9_]*$/, 'a shell variable name');
  for (const [k] of env) {
    if (RESERVED_ENV.includes(k))
      throw invalidOption('env', k, `${RESERVED_ENV.join(', ')} are set by track-launch for each rank`);
  }
  const sbatchOptions = list(raw.sbatch).map((o) => {
    const s = String(o);
    if (!/^-/.test(s) || !noControl(s))
      throw invalidOption('sbatch', s, 'give one sbatch option per --sbatch, starting with -, on one line');
    if (/^(-o|-e|--output|--error)\b/.test(s))
      throw invalidOption(
        'sbatch',
        s,
        'the job output goes to <run-dir>/logs/job.out; per-rank logs are in <run-dir>/logs',
      );
    return s;
  });

  const runDirRaw = str('run-dir', raw.runDir) ?? path.join('runs', `${name}-${stamp(ctx.now)}`);
  const runDir = path.resolve(ctx.cwd, runDirRaw);
  if (runDir.includes('%'))
    throw invalidOption(
      'run-dir',
      runDirRaw,
      "a path without '%' (Slurm reads % in output paths as a pattern)",
    );

  const image = str('container', raw.container);
  const binds = list(raw.bind).map((b) => str('bind', b) ?? '');
  if (binds.length && !image) throw invalidOption('bind', binds[0], '--bind needs --container');
  const modules = list(raw.module).map((m) => {
    const s = str('module', m, /^[^\s]+$/, 'a module name without spaces, e.g. GCC/11.3.0');
    if (!s) throw invalidOption('module', m, 'a module name without spaces, e.g. GCC/11.3.0');
    return s;
  });

  const stageRaw = str('stage', raw.stage);
  const stage = stageRaw === undefined ? undefined : path.resolve(ctx.cwd, stageRaw);
  const signal = parseSignal(str('signal', raw.signal));
  const requeue = raw.requeue === true || raw.requeue === 'true';
  if (requeue && !signal)
    throw invalidOption(
      'requeue',
      true,
      '--requeue needs --signal SIG[@SECONDS] (the warning that triggers it)',
    );
  const params = Object.fromEntries(
    keyValues('param', raw.param, /^[A-Za-z0-9_.\-/ ]{1,250}$/, 'letters, digits, _ . - / or spaces'),
  );
  return {
    name,
    nodes,
    tasksPerNode,
    gpusPerNode,
    cpusPerTask,
    mem,
    time,
    partition: str(
      'partition',
      raw.partition,
      /^[A-Za-z0-9_.,+-]+$/,
      'a partition name (letters, digits, _ . - ; comma-separated for several)',
    ),
    account: str('account', raw.account, SLURM_NAME, 'an account name (letters, digits, _ . + -)'),
    qos: str('qos', raw.qos, SLURM_NAME, 'a QOS name (letters, digits, _ . + -)'),
    constraint: str(
      'constraint',
      raw.constraint,
      /^[A-Za-z0-9_.,&|*![\]():-]+$/,
      'node features joined with & | , such as "a100&ib"',
    ),
    exclusive: raw.exclusive === true || raw.exclusive === 'true',
    runDir,
    modules,
    container: image
      ? { image, binds, nv: raw.nv === undefined ? gpusPerNode > 0 : Boolean(raw.nv) }
      : undefined,
    env,
    sbatchOptions,
    launcher,
    backend,
    masterIface,
    masterCidr,
    rendezvousTimeout: int('rendezvous-timeout', raw.rendezvousTimeout, 1, 86400, 120)!,
    command,
    stage,
    signal,
    requeue,
    sampleInterval: int('sample-interval', raw.sampleInterval, 0, 3600, 10)!,
    experiment: str('experiment', raw.experiment),
    metricsFormat: metricsFormat(str('metrics-format', raw.metricsFormat), ctx.checkMetricsFormat),
    params,
  };
}

const SIGNALS = ['USR1', 'USR2', 'TERM', 'INT', 'HUP', 'URG', 'ALRM', 'CONT'];

/** "USR1@90" / "SIGUSR1" -> { name: 'USR1', seconds: 90 } (default 60 s before the limit). */
function parseSignal(text: string | undefined): JobSpec['signal'] {
  if (text === undefined) return undefined;
  const m = /^(?:SIG)?([A-Z0-9]+)(?:@(\d{1,5}))?$/.exec(text.toUpperCase());
  if (!m || !SIGNALS.includes(m[1]) || (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65535))) {
    throw invalidOption(
      'signal',
      text,
      `use SIG[@SECONDS] with SIG one of ${SIGNALS.join(', ')} and SECONDS 1-65535 (e.g. USR1@90)`,
    );
  }
  return { name: m[1], seconds: m[2] === undefined ? 60 : Number(m[2]) };
}

/** Refused now rather than at the first ingest: the checker names the option and the formats. */
function metricsFormat(format: string | undefined, check?: (f: string) => void): string | undefined {
  if (format !== undefined) check?.(format);
  return format;
}

function validCidr(c: string): boolean {
  const [ip, bits] = c.split('/');
  return ip.split('.').every((o) => Number(o) <= 255) && Number(bits) <= 32;
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
