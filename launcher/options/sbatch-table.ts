// sbatch's own options (Slurm 22.05, src/common/slurm_opt.c: the options sbatch accepts), as
// getopt_long sees them: NAME then '-' (no argument), '=' (required) or '?' (optional), then the
// short letter if any. Used to read a --sbatch value exactly as sbatch would read it.

export type ArgKind = 'none' | 'required' | 'optional';

export interface SbatchOptionDef {
  name: string;
  arg: ArgKind;
  short?: string;
}

const KINDS: Record<string, ArgKind> = { '-': 'none', '=': 'required', '?': 'optional' };

const TABLE = `
account=A acctg-freq= array=a batch= bb= bbf= begin=b chdir=D cluster= cluster-constraint=
clusters=M comment= constraint=C container= context= contiguous- core-spec=S cores-per-socket=
cpu-freq= cpus-per-gpu= cpus-per-task=c deadline= delay-boot= dependency=d distribution=m error=e
exclude=x exclusive? export= export-file= extra-node-info=B get-user-env? gid= gpu-bind= gpu-freq=
gpus=G gpus-per-node= gpus-per-socket= gpus-per-task= gres= gres-flags= help-h hint= hold-H
ignore-pbs- input=i job-name=J kill-on-invalid-dep= licenses=L mail-type= mail-user= mcs-label=
mem= mem-bind= mem-per-cpu= mem-per-gpu= mincpus= network= nice? no-kill?k no-requeue- nodefile=F
nodelist=w nodes=N ntasks=n ntasks-per-core= ntasks-per-gpu= ntasks-per-node= ntasks-per-socket=
ntasks-per-tres= open-mode= output=o overcommit-O oversubscribe-s parsable- partition=p power=
prefer= priority= profile= propagate? qos=q quiet-Q reboot- requeue- reservation= signal=
sockets-per-node= spread-job- switches= tasks-per-node= test-only- thread-spec= threads-per-core=
time=t time-min= tmp= uid= usage- use-min-nodes- verbose-v version-V wait-W wait-all-nodes= wckey=
wrap=
`
  .split(/\s+/)
  .filter(Boolean);

export const SBATCH_OPTIONS: readonly SbatchOptionDef[] = TABLE.map((t) => {
  const m = /^([a-z-]+)([-=?])(.?)$/.exec(t)!;
  return { name: m[1], arg: KINDS[m[2]], ...(m[3] ? { short: m[3] } : {}) };
});
