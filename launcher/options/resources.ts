// The Resources options of `submit`: what the job asks Slurm for, named as Slurm names them.
import { invalidOption } from '../../core';
import { parseSlurmMemoryMiB, parseSlurmTime, TIME_FORMATS } from '../spec/slurm-time';
import { onOff, str, text, wholeNumber } from './parse-values';
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
    sbatch: { directive: 'nodes', value: (s) => String(s.nodes) },
    record: { field: 'nodes', value: (s) => s.nodes },
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
      value: (s) => String(s.launcher === 'torchrun' ? 1 : s.tasksPerNode),
    },
    record: { field: 'tasks_per_node', value: (s) => s.tasksPerNode },
    bootstrap: {
      flags: ['--nproc-per-node'],
      slot: 3,
      args: (s) => (s.launcher === 'torchrun' ? [`--nproc-per-node ${s.tasksPerNode}`] : []),
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
      value: (s) => (s.gpusPerNode > 0 && !gresGpus(s.gres) ? String(s.gpusPerNode) : undefined),
    },
    record: { field: 'gpus_per_node', value: (s) => s.gpusPerNode },
  }),
  cpusPerTask: specOption({
    type: 'string',
    alias: 'c',
    group,
    help: 'CPUs per rank',
    env: true,
    parse: wholeNumber(1, 4096),
    sbatch: { directive: 'cpus-per-task', value: (s) => s.cpusPerTask?.toString() },
  }),
  mem: specOption({
    type: 'string',
    group,
    help: 'Memory per node: 16G, 4000M (default unit M)',
    env: true,
    parse: (v, flag) => {
      const mem = str(flag, v);
      if (mem !== undefined && parseSlurmMemoryMiB(mem) === undefined) {
        throw invalidOption(
          flag,
          mem,
          'use a whole number with an optional K, M, G or T suffix (e.g. 4G, 16000M; default unit M)',
        );
      }
      return mem;
    },
    sbatch: { directive: 'mem', value: (s) => s.mem },
  }),
  time: specOption({
    type: 'string',
    alias: 't',
    group,
    help: 'Time limit: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS',
    env: true,
    parse: (v, flag) => {
      const time = str(flag, v);
      if (time !== undefined && parseSlurmTime(time) === undefined)
        throw invalidOption(flag, time, TIME_FORMATS);
      return time;
    },
    sbatch: { directive: 'time', value: (s) => s.time },
    record: { field: 'time', value: (s) => s.time },
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
    sbatch: { directive: 'partition', value: (s) => s.partition },
    record: { field: 'partition', value: (s) => s.partition },
  }),
  account: specOption({
    type: 'string',
    alias: 'A',
    group,
    help: 'Slurm account',
    env: true,
    parse: text(SLURM_NAME, 'an account name (letters, digits, _ . + -)'),
    sbatch: { directive: 'account', value: (s) => s.account },
    record: { field: 'account', value: (s) => s.account },
  }),
  qos: specOption({
    type: 'string',
    alias: 'q',
    group,
    help: 'Quality of service',
    env: true,
    parse: text(SLURM_NAME, 'a QOS name (letters, digits, _ . + -)'),
    sbatch: { directive: 'qos', value: (s) => s.qos },
    record: { field: 'qos', value: (s) => s.qos },
  }),
  constraint: specOption({
    type: 'string',
    alias: 'C',
    group,
    help: 'Node features, e.g. "a100&ib"',
    env: true,
    parse: text(/^[A-Za-z0-9_.,&|*![\]():-]+$/, 'node features joined with & | , such as "a100&ib"'),
    sbatch: { directive: 'constraint', value: (s) => s.constraint },
  }),
  exclusive: specOption({
    type: 'boolean',
    group,
    help: 'Do not share nodes with other jobs',
    parse: onOff,
    sbatch: { directive: 'exclusive', value: (s) => (s.exclusive ? '' : undefined) },
  }),
};
