// The Job options of `submit`: its name and run directory, how the ranks start, preemption, sampling.
import { invalidOption } from '../../core';
import { parseArraySpec } from '../spec/array-spec';
import { BACKENDS, LAUNCHERS, PreemptSignal } from '../spec/types';
import { onOff, oneOf, str, text, wholeNumber } from './parse-values';
import { SLURM_NAME } from './resources';
import { specOption } from './types';

const NAME_RULE = 'use letters, digits and _ . + - (at most 128 characters)';
/** The signals a job may be warned with, and their Linux numbers (sbatch takes either). */
const SIGNAL_NUMBERS: Record<string, number> = {
  HUP: 1,
  INT: 2,
  USR1: 10,
  USR2: 12,
  ALRM: 14,
  TERM: 15,
  CONT: 18,
  URG: 23,
};
const SIGNALS = Object.keys(SIGNAL_NUMBERS);
const group = 'Job:';

export const JOB_OPTIONS = {
  name: specOption({
    type: 'string',
    alias: ['J', 'job-name'],
    group,
    help: 'Job name, sbatch --job-name (default: the script name)',
    env: true,
    parse: text(SLURM_NAME, NAME_RULE, (name) => name.length <= 128), // default: validateSubmit
    sbatch: 'job-name',
  }),
  runDir: specOption({
    type: 'string',
    group,
    help: 'Run directory on the shared filesystem (default ./runs/<name>-<time>)',
    parse: text(), // resolved, and its default made, in validateSubmit (it needs the name and the time)
  }),
  array: specOption({
    type: 'string',
    alias: 'a',
    group,
    help: 'An array job, Slurm syntax (0-2, 1,3,5, 0-15:4%2): each task runs in <run-dir>/task-<N>/ and sees $TRACK_LAUNCH_ARRAY_TASK (Slurm executor only)',
    parse: (v, flag) => {
      const text = str(flag, v);
      if (text === undefined) return undefined;
      const spec = parseArraySpec(text);
      if (typeof spec === 'string') throw invalidOption(flag, text, spec);
      return spec;
    },
    sbatch: { directive: 'array', value: (s): string | undefined => s.array?.text },
  }),
  launcher: specOption({
    type: 'choice',
    choices: LAUNCHERS,
    group,
    help: 'srun: one task per GPU; torchrun: one per node; mpiexec: Open MPI (default srun)',
    env: true,
    parse: (v, flag, ctx) => oneOf(LAUNCHERS)(v, flag, ctx) ?? 'srun',
    record: 'launcher',
    // Also the bootstrap's --launcher mode, written first by bootstrapArgs (the local executor's is 'local').
  }),
  backend: specOption({
    type: 'choice',
    choices: BACKENDS,
    group,
    help: 'torch.distributed backend (default nccl with GPUs, else gloo)',
    parse: oneOf(BACKENDS), // the default depends on --gpus-per-node: validateSubmit
    record: 'backend',
    bootstrap: { flags: ['--backend'], slot: 2, args: (s): string[] => [`--backend ${s.backend}`] },
  }),
  signal: specOption({
    type: 'string',
    group,
    help: 'Preemption warning [B:]SIG[@SECONDS], SIG a name or number (default 60 s): every rank gets SIG before the time limit (B: Slurm signals the batch shell, which passes it on); $TRACK_LAUNCH_SIGNAL names it',
    parse: (v, flag) => parseSignal(flag, str(flag, v)),
    sbatch: {
      directive: 'signal',
      value: (s): string | undefined =>
        s.signal ? `${s.signal.batch ? 'B:' : ''}${s.signal.name}@${s.signal.seconds}` : undefined,
    },
    bootstrap: {
      flags: ['--signal'],
      slot: 4,
      args: (s): string[] => (s.signal ? [`--signal ${s.signal.name}`] : []),
    },
  }),
  requeue: specOption({
    type: 'boolean',
    group,
    help: 'With --signal: requeue the job when the signal arrives (after the ranks exit)',
    parse: onOff,
    sbatch: 'requeue',
    bootstrap: { flags: ['--requeue'], slot: 5, args: (s): string[] => (s.requeue ? ['--requeue'] : []) },
  }),
  sampleInterval: specOption({
    type: 'string',
    group,
    help: 'Seconds between CPU/memory/GPU samples on each node (default 10; 0: off)',
    parse: wholeNumber(0, 3600, 10), // reaches the ranks as TRACK_LAUNCH_SAMPLE_INTERVAL
  }),
};

/** "USR1@90" / "SIGUSR1" / "B:10@120" -> { name: 'USR1', seconds: 90, batch } (default 60 s). */
const parseSignal = (flag: string, text: string | undefined): PreemptSignal | undefined => {
  if (text === undefined) return undefined;
  const m = /^(B:)?(?:SIG)?([A-Z0-9]+)(?:@(\d{1,5}))?$/.exec(text.toUpperCase());
  const name = m && /^\d+$/.test(m[2]) ? SIGNALS.find((s) => SIGNAL_NUMBERS[s] === Number(m[2])) : m?.[2];
  if (
    !m ||
    !name ||
    !SIGNALS.includes(name) ||
    (m[3] !== undefined && (Number(m[3]) < 1 || Number(m[3]) > 65535))
  ) {
    throw invalidOption(
      flag,
      text,
      `use [B:]SIG[@SECONDS] with SIG one of ${SIGNALS.map((s) => `${s} (${SIGNAL_NUMBERS[s]})`).join(', ')} and SECONDS 1-65535 (e.g. USR1@90, B:USR1@60, 10@60)`,
    );
  }
  return { name, seconds: m[3] === undefined ? 60 : Number(m[3]), ...(m[1] ? { batch: true } : {}) };
};
