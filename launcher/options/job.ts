// The Job options of `submit`: its name and run directory, how the ranks start, preemption, sampling.
import { invalidOption } from '../../core';
import { BACKENDS, JobSpec, LAUNCHERS } from '../spec/types';
import { onOff, oneOf, str, text, wholeNumber } from './parse-values';
import { SLURM_NAME } from './resources';
import { specOption } from './types';

const NAME_RULE = 'use letters, digits and _ . + - (at most 128 characters)';
const SIGNALS = ['USR1', 'USR2', 'TERM', 'INT', 'HUP', 'URG', 'ALRM', 'CONT'];
const group = 'Job:';

export const JOB_OPTIONS = {
  name: specOption({
    type: 'string',
    alias: 'J',
    group,
    help: 'Job name (default: the script name)',
    env: true,
    parse: (v, flag) => {
      const name = str(flag, v, SLURM_NAME, NAME_RULE);
      if (name !== undefined && name.length > 128) throw invalidOption(flag, name, NAME_RULE);
      return name; // the default comes from the command: validateSubmit
    },
    sbatch: { directive: 'job-name', value: (s) => s.name },
  }),
  runDir: specOption({
    type: 'string',
    group,
    help: 'Run directory on the shared filesystem (default ./runs/<name>-<time>)',
    parse: text(), // resolved, and its default made, in validateSubmit (it needs the name and the time)
  }),
  launcher: specOption({
    type: 'choice',
    choices: LAUNCHERS,
    group,
    help: 'srun: one task per GPU; torchrun: one per node; mpiexec: Open MPI (default srun)',
    env: true,
    parse: (v, flag, ctx) => oneOf(LAUNCHERS)(v, flag, ctx) ?? 'srun',
    record: { field: 'launcher', value: (s) => s.launcher },
    // Also the bootstrap's --launcher mode, written first by bootstrapArgs (the local executor's is 'local').
  }),
  backend: specOption({
    type: 'choice',
    choices: BACKENDS,
    group,
    help: 'torch.distributed backend (default nccl with GPUs, else gloo)',
    parse: oneOf(BACKENDS), // the default depends on --gpus-per-node: validateSubmit
    record: { field: 'backend', value: (s) => s.backend },
    bootstrap: { flags: ['--backend'], slot: 2, args: (s) => [`--backend ${s.backend}`] },
  }),
  signal: specOption({
    type: 'string',
    group,
    help: 'Preemption warning SIG[@SECONDS] (default 60 s): every rank gets SIG before the time limit; $TRACK_LAUNCH_SIGNAL names it',
    parse: (v, flag) => parseSignal(flag, str(flag, v)),
    sbatch: {
      directive: 'signal',
      value: (s) => (s.signal ? `${s.signal.name}@${s.signal.seconds}` : undefined),
    },
    bootstrap: { flags: ['--signal'], slot: 4, args: (s) => (s.signal ? [`--signal ${s.signal.name}`] : []) },
  }),
  requeue: specOption({
    type: 'boolean',
    group,
    help: 'With --signal: requeue the job when the signal arrives (after the ranks exit)',
    parse: onOff,
    sbatch: { directive: 'requeue', value: (s) => (s.requeue ? '' : undefined) },
    bootstrap: { flags: ['--requeue'], slot: 5, args: (s) => (s.requeue ? ['--requeue'] : []) },
  }),
  sampleInterval: specOption({
    type: 'string',
    group,
    help: 'Seconds between CPU/memory/GPU samples on each node (default 10; 0: off)',
    parse: wholeNumber(0, 3600, 10), // reaches the ranks as TRACK_LAUNCH_SAMPLE_INTERVAL
  }),
};

/** "USR1@90" / "SIGUSR1" -> { name: 'USR1', seconds: 90 } (default 60 s before the limit). */
const parseSignal = (flag: string, text: string | undefined): JobSpec['signal'] => {
  if (text === undefined) return undefined;
  const m = /^(?:SIG)?([A-Z0-9]+)(?:@(\d{1,5}))?$/.exec(text.toUpperCase());
  if (!m || !SIGNALS.includes(m[1]) || (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65535))) {
    throw invalidOption(
      flag,
      text,
      `use SIG[@SECONDS] with SIG one of ${SIGNALS.join(', ')} and SECONDS 1-65535 (e.g. USR1@90)`,
    );
  }
  return { name: m[1], seconds: m[2] === undefined ? 60 : Number(m[2]) };
};
