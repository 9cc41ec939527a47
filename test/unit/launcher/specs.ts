// Named specs shared by the golden and shellcheck tests.
import { validateSubmit, RawSubmitOptions } from '../../../launcher/spec/validate';
import { JobSpec } from '../../../launcher/spec/types';

const ctx = { cwd: '/home/user/project', now: new Date('2026-12-02T10:11:12Z') };
export const spec = (raw: RawSubmitOptions): JobSpec => validateSubmit(raw, ctx);

export const NAMED_SPECS: Record<string, JobSpec> = {
  'srun-basic': spec({ nodes: 3, command: ['python3', 'examples/polynomial/train.py'] }),
  // Tracked inside the allocation: the tracker starts beside the ranks and is waited for at the end.
  'srun-track-job': spec({ nodes: 3, track: 'job', command: ['python3', 'examples/polynomial/train.py'] }),
  'srun-gpus-all-options': spec({
    nodes: 2,
    gpusPerNode: 4,
    cpusPerTask: 8,
    mem: '64G',
    time: '1-12:00:00',
    partition: 'gpu',
    account: 'proj42',
    qos: 'high',
    constraint: 'a100&ib',
    exclusive: true,
    name: 'luna',
    runDir: '/scratch/u/runs/luna-1',
    sbatch: ['--mail-type=END'],
    masterIface: 'ib0',
    signal: 'USR1@90',
    requeue: true,
    rendezvousTimeout: 300,
    env: ['OMP_NUM_THREADS=4'],
    command: ['python3', 'train.py', '--epochs', '10'],
  }),
  'torchrun-3x2': spec({
    nodes: 3,
    tasksPerNode: 2,
    launcher: 'torchrun',
    masterCidr: '10.77.77.0/24',
    command: ['train.py'],
  }),
  // Seed 004's run.sbatch, rendered: MPI backend, Singularity, modules.
  'mpiexec-mpi-seed004': spec({
    name: 'pytorch-mpi-singularity',
    partition: 'batch',
    time: '5',
    nodes: 3,
    tasksPerNode: 1,
    cpusPerTask: 16,
    mem: '64G',
    module: ['GCC/11.3.0', 'OpenMPI/4.1.4'],
    container: '/pfss/containers/ngc.pytorch.22.09.sif',
    launcher: 'mpiexec',
    backend: 'mpi',
    command: ['python', 'main.py'],
  }),
  // The Slurm options users type: --gres for the GPUs, node lists, a reservation, a
  // dependency, and a preemption warning to the batch shell, passed on to the ranks.
  'srun-slurm-named-options': spec({
    nodes: 2,
    gres: 'gpu:a100:4',
    nodelist: 'gpu[01-02]',
    exclude: 'gpu07',
    reservation: 'maint',
    dependency: 'afterok:1234',
    signal: 'B:USR1@120',
    sbatch: ['--mail-t=END', '--comment="nightly run"'],
    command: ['python3', 'train.py'],
  }),
  'srun-stage-2x2': spec({
    nodes: 2,
    tasksPerNode: 2,
    stage: '/scratch/luna shards',
    command: ['python3', 'train.py'],
  }),
  // An array job: every task in <run-dir>/task-<N>, the bootstrap and stage.sh from the
  // array's own bin/, a step and a throttle.
  'srun-array-stage': spec({
    nodes: 2,
    name: 'sweep',
    runDir: '/scratch/u/runs/sweep-1',
    array: '0-15:4%2',
    stage: '/scratch/data',
    command: ['python3', 'train.py'],
  }),
  'hostile-values': spec({
    nodes: 2,
    runDir: "/tmp/it's a dir/$(touch x)",
    env: ["MSG=it's `date` $(id) ; rm -rf ~", 'EMPTY='],
    module: ["weird'mod$(x)"],
    container: '/img/with space.sif',
    bind: ['/data:/data:ro', "/a b:/c'd"],
    command: [
      'python3',
      '-c',
      'import sys; print(sys.argv)',
      "'",
      '"',
      '$HOME',
      '`id`',
      '\n',
      '*',
      '-n',
      'é ü 日本',
    ],
  }),
};

/** The specs whose local executor script also has a golden file (test/golden/<name>.local.sh). */
export const LOCAL_GOLDEN = ['srun-basic', 'srun-stage-2x2', 'hostile-values'];
