// The Resources options of `submit`: what the job asks Slurm for, named as Slurm names them.
import { parseSlurmMemoryMiB, parseSlurmTime, TIME_FORMATS } from '../spec/slurm-time';
import { onOff, text, wholeNumber } from './parse-values';
import { gpuCount, parseGres } from '../cluster/gres';
import { specOption } from './types';

/** GPUs a --gres value asks for per node (0 without one). */
export const gresGpus = (gres: string | undefined): number => gpuCount(parseGres(gres));

export const SLURM_NAME = /^[A-Za-z0-9_.+-]+$/;
const group = 'Resources:';

export const RESOURCE_OPTIONS = {
  nodes: specOption({
    type: 'string',
    alias: 'N',
    group,
    help: 'Number of nodes',
    env: true,
    parse: wholeNumber(1, 100000, 1),
    sbatch: 'nodes',
    record: 'nodes',
  }),
  tasksPerNode: specOption({
    type: 'string',
    alias: 'ntasks-per-node',
    group,
    help: 'Ranks per node (default: --gpus-per-node, else 1)',
    env: true,
    parse: wholeNumber(1, 1024), // the default depends on --gpus-per-node: validateSubmit
    // One Slurm task per node under torchrun: torchrun starts the node's processes itself.
    sbatch: {
      directive: 'ntasks-per-node',
      value: (s): string | undefined => String(s.launcher === 'torchrun' ? 1 : s.tasksPerNode),
    },
    record: 'tasks_per_node',
    bootstrap: {
      flags: ['--nproc-per-node'],
      slot: 3,
      args: (s): string[] => (s.launcher === 'torchrun' ? [`--nproc-per-node ${s.tasksPerNode}`] : []),
    },
  }),
  gpusPerNode: specOption({
    type: 'string',
    group,
    help: 'GPUs per node (default 0, or the GPUs of --gres)',
    env: true,
    parse: wholeNumber(0, 64), // the default depends on --gres: validateSubmit
    // --gres naming GPUs asks for them itself: one request, not two that could disagree.
    sbatch: {
      directive: 'gpus-per-node',
      value: (s): string | undefined =>
        s.gpusPerNode > 0 && !gresGpus(s.gres) ? String(s.gpusPerNode) : undefined,
    },
    record: 'gpus_per_node',
  }),
  cpusPerTask: specOption({
    type: 'string',
    alias: 'c',
    group,
    help: 'CPUs per rank',
    env: true,
    parse: wholeNumber(1, 4096),
    sbatch: 'cpus-per-task',
  }),
  mem: specOption({
    type: 'string',
    group,
    help: 'Memory per node: 16G, 4000M (default unit M)',
    env: true,
    parse: text(
      undefined,
      'use a whole number with an optional K, M, G or T suffix (e.g. 4G, 16000M; default unit M)',
      (mem) => parseSlurmMemoryMiB(mem) !== undefined,
    ),
    sbatch: 'mem',
  }),
  time: specOption({
    type: 'string',
    alias: 't',
    group,
    help: 'Time limit: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS',
    env: true,
    parse: text(undefined, TIME_FORMATS, (time) => parseSlurmTime(time) !== undefined),
    sbatch: 'time',
    record: 'time',
  }),
  partition: specOption({
    type: 'string',
    alias: 'p',
    group,
    help: 'Slurm partition',
    env: true,
    parse: text(
      /^[A-Za-z0-9_.,+-]+$/,
      'a partition name (letters, digits, _ . - ; comma-separated for several)',
    ),
    sbatch: 'partition',
    record: 'partition',
  }),
  account: specOption({
    type: 'string',
    alias: 'A',
    group,
    help: 'Slurm account',
    env: true,
    parse: text(SLURM_NAME, 'an account name (letters, digits, _ . + -)'),
    sbatch: 'account',
    record: 'account',
  }),
  qos: specOption({
    type: 'string',
    alias: 'q',
    group,
    help: 'Quality of service',
    env: true,
    parse: text(SLURM_NAME, 'a QOS name (letters, digits, _ . + -)'),
    sbatch: 'qos',
    record: 'qos',
  }),
  constraint: specOption({
    type: 'string',
    alias: 'C',
    group,
    help: 'Node features, e.g. "a100&ib"',
    env: true,
    parse: text(/^[A-Za-z0-9_.,&|*![\]():-]+$/, 'node features joined with & | , such as "a100&ib"'),
    sbatch: 'constraint',
  }),
  exclusive: specOption({
    type: 'boolean',
    group,
    help: 'Do not share nodes with other jobs',
    parse: onOff,
    sbatch: 'exclusive',
  }),
};
