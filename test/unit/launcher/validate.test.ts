import { TrackLaunchError } from '../../../core/errors';
import { RawSubmitOptions, validateSubmit } from '../../../launcher/spec/validate';
import { spec } from './specs';

function refusal(raw: RawSubmitOptions): TrackLaunchError {
  try {
    spec({ command: ['python3', 'train.py'], ...raw });
  } catch (e) {
    expect(e).toBeInstanceOf(TrackLaunchError);
    return e as TrackLaunchError;
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
}

describe('spec validation', () => {
  test.each<[RawSubmitOptions, RegExp]>([
    [{ nodes: 0 }, /^--nodes: 0 is not valid; use a whole number from 1 to 100000$/],
    [{ nodes: '2.5' }, /^--nodes: "2\.5" is not valid; use a whole number/],
    [{ tasksPerNode: -1 }, /^--tasks-per-node: -1 is not valid/],
    [{ gpusPerNode: 'many' }, /^--gpus-per-node: "many" is not valid; use a whole number from 0 to 64/],
    [{ time: '1:99' }, /^--time: "1:99" is not valid; use minutes, MM:SS, HH:MM:SS, D-HH/],
    [{ time: '2-25' }, /^--time: "2-25" is not valid/],
    [{ mem: '4 GB' }, /^--mem: "4 GB" is not valid; use a whole number with an optional K, M, G or T suffix/],
    [{ launcher: 'pdsh' }, /^--launcher: "pdsh" is not valid; use one of: srun, torchrun, mpiexec$/],
    [{ backend: 'ucc' }, /^--backend: "ucc" is not valid; use one of: nccl, gloo, mpi$/],
    [{ backend: 'mpi' }, /^--backend: "mpi" is not valid; the mpi backend needs --launcher mpiexec/],
    [{ name: 'my job' }, /^--name: "my job" is not valid; use letters, digits and _ \. \+ -/],
    [{ partition: 'gpu;rm' }, /^--partition: "gpu;rm" is not valid/],
    [{ env: ['1X=2'] }, /^--env: "1X" is not valid; use KEY=VALUE \(or KEY alone/],
    [{ env: ['RANK=3'] }, /^--env: "RANK" is not valid; RANK, WORLD_SIZE, .* are set by track-launch/],
    [
      { env: ['SLURM_JOB_ID=x/../../tmp/r'] },
      /^--env: "SLURM_JOB_ID" is not valid; SLURM_\* variables belong to Slurm/,
    ],
    [
      { env: ['TRACK_LAUNCH_RUN_DIR=/tmp'] },
      /^--env: "TRACK_LAUNCH_RUN_DIR" is not valid; TRACK_LAUNCH_\* variables/,
    ],
    [
      { sbatch: ['mail-type=END'] },
      /^--sbatch: "mail-type=END" is not valid; an sbatch option starts with -/,
    ],
    [
      { sbatch: ['--output=x'] },
      /^--sbatch: "--output=x" is not valid; --output is set by track-launch: the job output goes to <run-dir>\/logs\/job\.out/,
    ],
    [
      { sbatch: ['--comment=x --error=/tmp/e'] },
      /give one sbatch option per --sbatch: "--error=\/tmp\/e" would be read as more/,
    ],
    [{ sbatch: ['-eerr.txt'] }, /--error is set by track-launch/],
    [{ sbatch: ['--outp=o.txt'] }, /--output is set by track-launch/],
    [
      { sbatch: ['--ntasks-per-node=4'] },
      /--ntasks-per-node is set by track-launch: use --tasks-per-node \(--ntasks-per-node\)/,
    ],
    [
      { sbatch: ['--array=0-3'] },
      /--array is set by track-launch: use --array \(-a\), e.g. --array 0-15%4: each task then gets its own run directory/,
    ],
    [{ sbatch: ['-J x'] }, /--job-name is set by track-launch: use --job-name/],
    [{ sbatch: ['--cl=x'] }, /--cl is ambiguous for sbatch \(--cluster, --cluster-constraint, --clusters\)/],
    [{ sbatch: ['--frobnicate'] }, /sbatch has no option --frobnicate/],
    [{ sbatch: ['-Hv'] }, /-H takes no value, so "v" would be read as more options/],
    [{ sbatch: ['--hold=yes'] }, /--hold takes no value/],
    [{ sbatch: ['--comment=run #3'] }, /a # outside quotes starts a comment/],
    [{ sbatch: ['--comment="open'] }, /the " quote is not closed/],
    [{ sbatch: ['--comment=a\tb'] }, /without control characters/],
    [{ mem: ' 4G' }, /^--mem: " 4G" is not valid/],
    [{ time: '30 ' }, /^--time: "30 " is not valid/],
    [{ nodes: ' 2' }, /^--nodes: " 2" is not valid/],
    [
      { gres: 'gpu:a100:4', gpusPerNode: 2 },
      /^--gres: "gpu:a100:4" is not valid; it asks for 4 GPU\(s\) per node and --gpus-per-node for 2/,
    ],
    [{ gres: 'gpu a100' }, /^--gres: "gpu a100" is not valid; NAME\[:TYPE\]\[:COUNT\]/],
    [
      { nodelist: 'tlnode[1-3]', nodes: 2 },
      /^--nodelist: "tlnode\[1-3\]" is not valid; it names 3 nodes and --nodes is 2/,
    ],
    [{ nodelist: '/etc/hosts' }, /^--nodelist: "\/etc\/hosts" is not valid; node names or a Slurm host list/],
    [{ nodelist: 'n[1-99999999]' }, /^--nodelist: .* is not valid/],
    [
      { nodelist: 'tlnode1', exclude: 'tlnode[1-2]' },
      /^--exclude: .* it excludes tlnode1, which --nodelist asks for/,
    ],
    [{ dependency: 'afterok:12;rm' }, /^--dependency: "afterok:12;rm" is not valid; TYPE:JOBID/],
    [{ reservation: 'a b' }, /^--reservation: "a b" is not valid/],
    [
      { param: ['job.nodes=1'] },
      /^--param: "job\.nodes" is not valid; job\.\* parameters are logged by track-launch/,
    ],
    [{ artifact: [''] }, /^--artifact: "" is not valid; give a path or glob/],
    [{ artifact: ['a\0b'] }, /^--artifact: .* is not valid; give a path or glob, not empty, without NUL/],
    [{ masterCidr: '10.0.0.0/33' }, /^--master-cidr: "10\.0\.0\.0\/33" is not valid/],
    [{ masterIface: 'eth0', masterCidr: '10.0.0.0/8' }, /give either --master-iface or --master-cidr/],
    [{ bind: ['/data'] }, /^--bind: "\/data" is not valid; --bind needs --container/],
    [{ runDir: '/tmp/100%' }, /^--run-dir: "\/tmp\/100%" is not valid/],
    [{ rendezvousTimeout: 0 }, /^--rendezvous-timeout: 0 is not valid/],
    [
      { signal: 'KILL' },
      /^--signal: "KILL" is not valid; use \[B:\]SIG\[@SECONDS\] with SIG one of HUP \(1\)/,
    ],
    [{ signal: '9@60' }, /^--signal: "9@60" is not valid/],
    [{ signal: 'R:USR1' }, /^--signal: "R:USR1" is not valid/],
    [{ signal: 'USR1@0' }, /^--signal: "USR1@0" is not valid/],
    [{ requeue: true }, /^--requeue: true is not valid; --requeue needs --signal/],
    [{ module: ['GCC 11'] }, /^--module: "GCC 11" is not valid; a module name without spaces/],
  ])('%j is refused with a message naming the option', (raw, message) => {
    const e = refusal(raw);
    expect(e.message).toMatch(message);
    expect(e.code).toBe('INVALID_SPEC');
    expect(e.exitCode).toBe(2);
  });

  test('no command is a usage error that shows how to give one', () => {
    const e = refusal({ command: [] });
    expect(e.code).toBe('USAGE');
    expect(e.message).toMatch(/give it after --/);
  });

  test('defaults: one task per GPU, nccl with GPUs, gloo without, srun, 120 s rendezvous', () => {
    const g = spec({ nodes: 2, gpusPerNode: 4, command: ['x.py'] });
    expect([g.tasksPerNode, g.backend, g.launcher, g.rendezvousTimeout]).toEqual([4, 'nccl', 'srun', 120]);
    expect(g.container).toBeUndefined();
    const c = spec({ command: ['x.py'] });
    expect([c.nodes, c.tasksPerNode, c.backend]).toEqual([1, 1, 'gloo']);
    expect(c.name).toBe('x');
    expect(c.runDir).toBe('/home/user/project/runs/x-20261202-101112');
  });

  test('--nv defaults to on only when GPUs are requested', () => {
    expect(spec({ gpusPerNode: 1, container: 'a.sif', command: ['x'] }).container?.nv).toBe(true);
    expect(spec({ container: 'a.sif', command: ['x'] }).container?.nv).toBe(false);
    expect(spec({ container: 'a.sif', nv: true, command: ['x'] }).container?.nv).toBe(true);
  });

  test('--track: login by default with a tracking server, none without; login or job need one', () => {
    const ctx = { cwd: '/w', now: new Date('2026-12-05T00:00:00Z') };
    const track = (raw: RawSubmitOptions, trackingUri?: string) =>
      validateSubmit(
        { command: ['x'], ...raw },
        { ...ctx, ...(trackingUri === undefined ? {} : { trackingUri }) },
      ).track;
    expect(track({}, 'http://mlflow:5000')).toBe('login');
    expect(track({}, '')).toBe('none');
    expect(track({ track: 'job' }, 'http://mlflow:5000')).toBe('job');
    expect(track({ track: 'none' }, 'http://mlflow:5000')).toBe('none');
    expect(() => track({ track: 'login' }, '')).toThrow(
      /^--track: "login" is not valid; there is no tracking server to send to: set MLFLOW_TRACKING_URI/,
    );
    expect(() => validateSubmit({ command: ['x'], mlflowEnv: true }, { ...ctx, trackingUri: '' })).toThrow(
      /^--mlflow-env: true is not valid; the job's runs are made at submit: set MLFLOW_TRACKING_URI/,
    );
    expect(() => track({ track: 'jobs' }, '')).toThrow(
      /^--track: "jobs" is not valid; use one of: login, job, none$/,
    );
  });

  test('every Slurm time format is accepted', () => {
    for (const t of ['30', '30:00', '1:30:00', '2-0', '2-12:30', '2-12:30:15', 'INFINITE', 'UNLIMITED']) {
      expect(spec({ time: t, command: ['x'] }).time).toBe(t);
    }
  });
});

describe('executor choice', () => {
  const { chooseExecutor } = jest.requireActual('../../../launcher/executors/executor');
  test('slurm where sbatch is on PATH, else local, and it says so', () => {
    const notes: string[] = [];
    expect(chooseExecutor(undefined, (n: string) => notes.push(n), { PATH: '/nonexistent' })).toBe('local');
    expect(notes).toEqual(['sbatch is not on PATH: running the ranks on this machine (--executor local).']);
    expect(chooseExecutor('slurm', () => undefined, { PATH: '/nonexistent' })).toBe('slurm');
    expect(() => chooseExecutor('k8s', () => undefined)).toThrow(
      /--executor: "k8s" is not valid; use slurm or local/,
    );
  });
});
