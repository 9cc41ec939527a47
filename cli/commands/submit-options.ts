// The options of `track-launch submit`, named as Slurm names them where Slurm has a name.
import { Argv } from 'yargs';
import { BACKENDS, LAUNCHERS } from '../../launcher';

// Numbers are declared as strings: the validator parses them and shows a bad value as given
// (yargs would turn "abc" into NaN).
export function submitOptions<T>(y: Argv<T>) {
  return y
    .option('nodes', { alias: 'N', type: 'string', group: 'Resources:', describe: 'Number of nodes' })
    .option('tasks-per-node', {
      type: 'string',
      group: 'Resources:',
      describe: 'Ranks per node (default: --gpus-per-node, else 1)',
    })
    .option('gpus-per-node', { type: 'string', group: 'Resources:', describe: 'GPUs per node (default 0)' })
    .option('cpus-per-task', { alias: 'c', type: 'string', group: 'Resources:', describe: 'CPUs per rank' })
    .option('mem', {
      type: 'string',
      group: 'Resources:',
      describe: 'Memory per node: 16G, 4000M (default unit M)',
    })
    .option('time', {
      alias: 't',
      type: 'string',
      group: 'Resources:',
      describe: 'Time limit: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS',
    })
    .option('partition', { alias: 'p', type: 'string', group: 'Resources:', describe: 'Slurm partition' })
    .option('account', { alias: 'A', type: 'string', group: 'Resources:', describe: 'Slurm account' })
    .option('qos', { alias: 'q', type: 'string', group: 'Resources:', describe: 'Quality of service' })
    .option('constraint', {
      alias: 'C',
      type: 'string',
      group: 'Resources:',
      describe: 'Node features, e.g. "a100&ib"',
    })
    .option('exclusive', {
      type: 'boolean',
      group: 'Resources:',
      describe: 'Do not share nodes with other jobs',
    })
    .option('name', {
      alias: 'J',
      type: 'string',
      group: 'Job:',
      describe: 'Job name (default: the script name)',
    })
    .option('run-dir', {
      type: 'string',
      group: 'Job:',
      describe: 'Run directory on the shared filesystem (default ./runs/<name>-<time>)',
    })
    .option('launcher', {
      choices: LAUNCHERS,
      group: 'Job:',
      describe: 'srun: one task per GPU; torchrun: one per node; mpiexec: Open MPI (default srun)',
    })
    .option('backend', {
      choices: BACKENDS,
      group: 'Job:',
      describe: 'torch.distributed backend (default nccl with GPUs, else gloo)',
    })
    .option('module', {
      type: 'string',
      array: true,
      group: 'Environment:',
      describe: '`module load` this before starting (repeatable)',
    })
    .option('container', {
      type: 'string',
      group: 'Environment:',
      describe: 'Run each rank in this Apptainer/Singularity image (.sif)',
    })
    .option('bind', {
      type: 'string',
      array: true,
      group: 'Environment:',
      describe: 'Container bind mount SRC[:DST[:OPTS]] (repeatable)',
    })
    .option('nv', {
      type: 'boolean',
      group: 'Environment:',
      describe: 'Pass --nv to the container (default: on when GPUs are requested)',
    })
    .option('env', {
      type: 'string',
      array: true,
      group: 'Environment:',
      describe: 'Set KEY=VALUE for every rank (repeatable)',
    })
    .option('sbatch', {
      type: 'string',
      array: true,
      group: 'Environment:',
      describe: 'Pass a raw sbatch option, e.g. --sbatch=--mail-type=END (repeatable)',
    })
    .option('stage', {
      type: 'string',
      group: 'Environment:',
      describe:
        'Copy this file or directory to node-local storage first; ranks find it in $TRACK_LAUNCH_DATA_DIR',
    })
    .option('signal', {
      type: 'string',
      group: 'Job:',
      describe:
        'Preemption warning SIG[@SECONDS] (default 60 s): every rank gets SIG before the time limit; $TRACK_LAUNCH_SIGNAL names it',
    })
    .option('requeue', {
      type: 'boolean',
      group: 'Job:',
      describe: 'With --signal: requeue the job when the signal arrives (after the ranks exit)',
    })
    .option('master-iface', {
      type: 'string',
      group: 'Discovery:',
      describe: 'Network interface whose address the master publishes (e.g. ib0)',
    })
    .option('master-cidr', {
      type: 'string',
      group: 'Discovery:',
      describe: 'Publish the master address inside this IPv4 network (e.g. 10.1.0.0/16)',
    })
    .option('rendezvous-timeout', {
      type: 'string',
      group: 'Discovery:',
      describe: 'Seconds ranks wait for the master address (default 120)',
    })
    .option('experiment', {
      type: 'string',
      group: 'Tracking:',
      describe: 'MLflow experiment (default $MLFLOW_EXPERIMENT_NAME, else the job name)',
    })
    .option('metrics-format', {
      type: 'string',
      group: 'Tracking:',
      describe: 'polynomial, luna, jsonl, or regex:<pattern> (default: detected)',
    })
    .option('param', {
      type: 'string',
      array: true,
      group: 'Tracking:',
      describe: 'Record KEY=VALUE as an MLflow parameter (repeatable)',
    })
    .option('executor', {
      choices: ['slurm', 'local'],
      group: 'Submission:',
      describe: 'slurm (sbatch) or local (ranks as processes here); default slurm where sbatch is on PATH',
    })
    .option('check', {
      type: 'boolean',
      default: true,
      group: 'Submission:',
      describe:
        "Check the request against the partition's nodes first (--no-check skips it, for clusters that hide their facts)",
    })
    .option('sample-interval', {
      type: 'string',
      group: 'Job:',
      describe: 'Seconds between CPU/memory/GPU samples on each node (default 10; 0: off)',
    })
    .option('dry-run', {
      type: 'boolean',
      group: 'Submission:',
      describe: 'Print the plan (script and command) and submit nothing',
    })
    .option('follow', {
      alias: 'f',
      type: 'boolean',
      group: 'Submission:',
      describe: 'Wait for the job, show progress; exit 0 only if it completed',
    })
    .option('poll', {
      type: 'string',
      default: '2',
      group: 'Submission:',
      describe: 'Seconds between state checks with --follow',
    });
}
