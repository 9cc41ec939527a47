// Where the job may run and when it may start, named as sbatch names them: --gres, --nodelist,
// --exclude, --reservation, --dependency. Each is rendered as the #SBATCH line of the same name;
// the cluster check (../cluster/preflight.ts) asks Slurm whether the nodes and reservation exist.
import { expandHostlist } from '../cluster/hostlist';
import { text } from './parse-values';
import { specOption } from './types';

const group = 'Resources:';
const HOSTLIST =
  /^[A-Za-z0-9_.-]+(\[[0-9,-]+\][A-Za-z0-9_.-]*)*(,[A-Za-z0-9_.-]+(\[[0-9,-]+\][A-Za-z0-9_.-]*)*)*$/;
const HOSTLIST_RULE =
  'node names or a Slurm host list such as tlnode[1-2],gpu07 (a file of names is not read)';
const DEPENDENCY =
  /^(singleton|(after|afterany|afterburstbuffer|aftercorr|afternotok|afterok)(:\d+(_\d+)?(\+\d+)?)+)([,?](singleton|(after|afterany|afterburstbuffer|aftercorr|afternotok|afterok)(:\d+(_\d+)?(\+\d+)?)+))*$/;

/** Node names of a host list, or undefined when a range is too large to be meant (a typo). */
export function hostNames(list: string): string[] | undefined {
  for (const m of list.matchAll(/(\d+)-(\d+)/g)) if (Number(m[2]) - Number(m[1]) > 100000) return undefined;
  return expandHostlist(list);
}

const hostlist = text(HOSTLIST, HOSTLIST_RULE, (s) => hostNames(s) !== undefined);

export const PLACEMENT_OPTIONS = {
  gres: specOption({
    type: 'string',
    group,
    help: 'Generic resources per node, as sbatch --gres: gpu:4, gpu:a100:4, gpu:a100:4,shard:2 (GPUs must agree with --gpus-per-node)',
    env: true,
    parse: text(
      /^[A-Za-z0-9_]+(:[A-Za-z0-9_.-]+)?(:\d+)?(,[A-Za-z0-9_]+(:[A-Za-z0-9_.-]+)?(:\d+)?)*$/,
      'NAME[:TYPE][:COUNT], comma-separated, e.g. gpu:a100:4',
    ),
    sbatch: 'gres',
  }),
  nodelist: specOption({
    type: 'string',
    alias: 'w',
    group,
    help: 'Run on these nodes (sbatch --nodelist), e.g. tlnode[1-2]',
    env: true,
    parse: hostlist,
    sbatch: 'nodelist',
  }),
  exclude: specOption({
    type: 'string',
    alias: 'x',
    group,
    help: 'Never run on these nodes (sbatch --exclude), e.g. tlnode3',
    env: true,
    parse: hostlist,
    sbatch: 'exclude',
  }),
  reservation: specOption({
    type: 'string',
    group,
    help: 'Run in this reservation (sbatch --reservation)',
    env: true,
    parse: text(/^[A-Za-z0-9_.+-]+(,[A-Za-z0-9_.+-]+)*$/, 'a reservation name (letters, digits, _ . + -)'),
    sbatch: 'reservation',
  }),
  dependency: specOption({
    type: 'string',
    alias: 'd',
    group,
    help: 'Start after other jobs (sbatch --dependency), e.g. afterok:1234 or singleton',
    parse: text(
      DEPENDENCY,
      'TYPE:JOBID[:JOBID...] joined by , (all) or ? (any), TYPE one of after, afterany, afterok, afternotok, aftercorr, afterburstbuffer; or singleton',
    ),
    sbatch: 'dependency',
  }),
};
