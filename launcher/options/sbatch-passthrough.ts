// --sbatch: a raw sbatch option, read as sbatch reads it (./sbatch-words.ts), refused when the
// generated script owns it (the named track-launch option says what to use instead), and
// rendered in full so that the #SBATCH line means exactly what was checked.
import { invalidOption } from '../../core';
import { list } from './parse-values';
import { readSbatchOption, renderSbatchOption, sbatchWords } from './sbatch-words';
import type { Parse } from './types';

const LOGS = 'the job output goes to <run-dir>/logs/job.out; per-rank logs are in <run-dir>/logs';
const LAYOUT = 'the layout is --nodes and --tasks-per-node (--ntasks-per-node), world size = their product';

/** sbatch options the generated script or the sbatch command line sets, beyond the declared options'
 *  directives (ParseContext.sbatchOwner): what to use instead. */
export const OWNED_SBATCH_OPTIONS: Record<string, string> = {
  ntasks: LAYOUT,
  'tasks-per-node': 'use --tasks-per-node (--ntasks-per-node)',
  'ntasks-per-gpu': LAYOUT,
  'ntasks-per-tres': LAYOUT,
  gpus: 'use --gpus-per-node (GPUs are asked per node)',
  'gpus-per-task': 'use --gpus-per-node (each node splits its GPUs over its tasks)',
  'gpus-per-socket': 'use --gpus-per-node',
  gres: 'use --gres (e.g. --gres gpu:a100:4)',
  'cpus-per-gpu': 'use --cpus-per-task (-c)',
  'mem-per-cpu': 'use --mem (memory per node)',
  'mem-per-gpu': 'use --mem (memory per node)',
  output: LOGS,
  error: LOGS,
  'open-mode': LOGS,
  array:
    'use --array (-a), e.g. --array 0-15%4: each task then gets its own run directory <run-dir>/task-<N>',
  'job-name': 'use --job-name (--name, -J)',
  signal: 'use --signal (e.g. --signal B:USR1@60)',
  requeue: 'use --requeue (with --signal)',
  nodefile: 'use --nodelist (-w)',
  chdir: 'the job runs in the directory submit is run from: cd there first',
  export: 'use --env KEY=VALUE (or --env KEY to pass a variable of this shell)',
  'export-file': 'use --env KEY=VALUE',
  parsable: 'track-launch reads the job id itself',
  wait: 'use --follow',
  'test-only': 'use --dry-run',
  wrap: 'the command goes after --',
  help: 'see sbatch --help',
  usage: 'see sbatch --usage',
  version: 'see sbatch --version',
};

export const sbatchPassthrough: Parse<string[]> = (v, flag, ctx) =>
  list(v).map((item) => {
    const s = typeof item === 'string' ? item : String(item);
    const refuse = (why: string) => invalidOption(flag, s, why);
    if ([...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
      throw refuse('give one sbatch option per --sbatch, on one line, without control characters');
    const words = sbatchWords(s);
    if (typeof words === 'string') throw refuse(words);
    const opt = readSbatchOption(words);
    if (typeof opt === 'string') throw refuse(opt);
    const owned = OWNED_SBATCH_OPTIONS[opt.def.name] ?? ctx.sbatchOwner?.(opt.def.name);
    if (owned) throw refuse(`--${opt.def.name} is set by track-launch: ${owned}`);
    return renderSbatchOption(opt);
  });
