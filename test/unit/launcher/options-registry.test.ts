// The option registry and what is derived from it: flags, settings, switches, #SBATCH lines and
// the job record. Pins what each derivation gives.
import { submitFlags, SUBMISSION_FLAGS } from '../../../cli/commands/submit-options';
import { ENV_OPTIONS, envDefaults, ignoredEnvWarnings, SETTINGS_HELP } from '../../../cli/settings';
import { checkBooleanFlags } from '../../../cli/boolean-flags';
import { parseOptions, SUBMIT_OPTIONS, submitOptionEntries } from '../../../launcher/options/registry';
import { SBATCH_OPTIONS } from '../../../launcher/options/sbatch-table';
import { flagName } from '../../../launcher/options/types';
import { jobRecordFor } from '../../../launcher/plan/job-record';
import { makePlan } from '../../../launcher/plan/plan';
import { sbatchDirectives } from '../../../launcher/plan/render-sbatch';
import { NAMED_SPECS, spec } from './specs';

const ctx = { cwd: '/w' };

describe('the declarations', () => {
  test('flags and aliases are unique across the job options and the submission flags', () => {
    const names = submitFlags().flatMap(([flag, d]) => [flag, ...(d.alias ? [d.alias] : [])]);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    expect(Object.keys(SUBMISSION_FLAGS).filter((k) => k in SUBMIT_OPTIONS)).toEqual([]);
  });

  test('choices exactly on the choice options', () => {
    for (const [flag, d] of submitFlags())
      expect({ flag, choices: d.type === 'choice' }).toEqual({ flag, choices: Array.isArray(d.choices) });
  });

  test('keys are yargs camel-case of the flags', () => {
    expect(['tasksPerNode', 'runDir', 'dryRun', 'module'].map(flagName)).toEqual([
      'tasks-per-node',
      'run-dir',
      'dry-run',
      'module',
    ]);
  });

  test('each parser names its own option when it refuses', () => {
    for (const [key, d] of submitOptionEntries()) {
      try {
        d.parse('\n', flagName(key), { ...ctx, checkMetricsFormat: () => undefined });
      } catch (e) {
        expect((e as Error).message.startsWith(`--${flagName(key)}: `)).toBe(true);
      }
    }
  });

  test('not given, each option takes its default (or none: validateSubmit derives it)', () => {
    expect(parseOptions({}, ctx)).toEqual({
      nodes: 1,
      tasksPerNode: undefined,
      gpusPerNode: undefined,
      gres: undefined,
      nodelist: undefined,
      exclude: undefined,
      reservation: undefined,
      dependency: undefined,
      artifact: [],
      cpusPerTask: undefined,
      mem: undefined,
      time: undefined,
      partition: undefined,
      account: undefined,
      qos: undefined,
      constraint: undefined,
      exclusive: false,
      name: undefined,
      runDir: undefined,
      launcher: 'srun',
      backend: undefined,
      signal: undefined,
      requeue: false,
      sampleInterval: 10,
      module: [],
      container: undefined,
      bind: [],
      nv: undefined,
      env: [],
      sbatch: [],
      stage: undefined,
      masterIface: undefined,
      masterCidr: undefined,
      rendezvousTimeout: 120,
      experiment: undefined,
      metricsFormat: undefined,
      track: undefined,
      mlflowEnv: false,
      param: {},
    });
  });
});

describe('--sbatch and the declared directives', () => {
  test('--sbatch refuses every directive a declared option renders, naming the option', () => {
    for (const [key, d] of submitOptionEntries()) {
      if (!d.sbatch) continue;
      const directive = typeof d.sbatch === 'string' ? d.sbatch : d.sbatch.directive;
      const takesValue = SBATCH_OPTIONS.find((o) => o.name === directive)?.arg !== 'none';
      const given = takesValue ? `--${directive}=1` : `--${directive}`;
      expect(() => spec({ sbatch: [given], command: ['x'] })).toThrow(
        new RegExp(`--${directive} is set by track-launch: use --(${flagName(key)}|${directive})\\b`),
      );
    }
    expect(() => spec({ sbatch: ['-p gpu'], command: ['x'] })).toThrow(
      /--partition is set by track-launch: use --partition \(-p\)$/,
    );
  });
});

describe('settings and switches derived from the declarations', () => {
  test('TRACK_LAUNCH_* variables: the single-valued options', () => {
    expect([...ENV_OPTIONS].sort()).toEqual(
      [
        'name',
        'nodes',
        'gres',
        'nodelist',
        'exclude',
        'reservation',
        'tasks-per-node',
        'gpus-per-node',
        'cpus-per-task',
        'mem',
        'time',
        'track',
        'partition',
        'account',
        'qos',
        'constraint',
        'launcher',
        'container',
        'experiment',
        'metrics-format',
        'master-iface',
        'master-cidr',
        'rendezvous-timeout',
        'executor',
      ].sort(),
    );
    const single = new Set(
      submitFlags()
        .filter(([, d]) => d.type === 'string' || d.type === 'choice')
        .map(([f]) => f),
    );
    expect(ENV_OPTIONS.filter((o) => !single.has(o))).toEqual([]);
  });

  test('no setting is read from a variable the job itself exports', () => {
    const exported = [
      'run-dir',
      'backend',
      'signal',
      'sample-interval',
      'job-id',
      'data-dir',
      'rank',
      'world-size',
    ];
    expect(ENV_OPTIONS.filter((o) => exported.includes(o))).toEqual([]);
    expect(envDefaults({ TRACK_LAUNCH_RUN_DIR: '/x', TRACK_LAUNCH_TASKS_PER_NODE: '2' })).toEqual({
      'tasks-per-node': '2',
    });
  });

  test('a TRACK_LAUNCH_<OPTION> of an option without a setting is ignored with a warning naming the flag', () => {
    const env = {
      TRACK_LAUNCH_SIGNAL: 'USR1@60',
      TRACK_LAUNCH_SAMPLE_INTERVAL: '5',
      TRACK_LAUNCH_PARTITION: 'gpu',
    };
    expect(envDefaults(env)).toEqual({ partition: 'gpu' });
    const warnings = ignoredEnvWarnings(env);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^TRACK_LAUNCH_SIGNAL is not a setting and is ignored .*: use --signal\b/);
    expect(warnings[1]).toMatch(/^TRACK_LAUNCH_SAMPLE_INTERVAL is not a setting .*: use --sample-interval\b/);
    expect(ignoredEnvWarnings({ TRACK_LAUNCH_PARTITION: 'gpu', TRACK_LAUNCH_MODULE: '' })).toEqual([]);
  });

  test('--help lists every option that has a TRACK_LAUNCH_ setting, and no other', () => {
    const listed = /for these options only: ([a-z, -]+);/.exec(SETTINGS_HELP)?.[1].split(', ');
    expect(listed?.sort()).toEqual([...ENV_OPTIONS].sort());
  });

  test('every switch of submit refuses a value other than true or false', () => {
    for (const flag of ['exclusive', 'nv', 'requeue', 'check', 'dry-run', 'follow']) {
      expect(() => checkBooleanFlags([`--${flag}=maybe`])).toThrow(`--${flag}: "maybe" is not valid`);
      expect(() => checkBooleanFlags([`--${flag}=false`])).not.toThrow();
    }
    expect(() => checkBooleanFlags(['--nodes=maybe'])).not.toThrow();
  });
});

describe('#SBATCH lines and the job record derived from the declarations', () => {
  const full = NAMED_SPECS['srun-gpus-all-options'];

  test('every directive of a full spec, sorted, then the passthrough', () => {
    expect(sbatchDirectives(full)).toEqual([
      '#SBATCH --account=proj42',
      '#SBATCH --constraint=a100&ib',
      '#SBATCH --cpus-per-task=8',
      '#SBATCH --exclusive',
      '#SBATCH --gpus-per-node=4',
      '#SBATCH --job-name=luna',
      '#SBATCH --mem=64G',
      '#SBATCH --nodes=2',
      '#SBATCH --ntasks-per-node=4',
      '#SBATCH --open-mode=append',
      '#SBATCH --partition=gpu',
      '#SBATCH --qos=high',
      '#SBATCH --requeue',
      '#SBATCH --signal=USR1@90',
      '#SBATCH --time=1-12:00:00',
      '#SBATCH --mail-type=END',
    ]);
  });

  test('job.json spec: the recorded fields and their values', () => {
    const s = spec({
      ...{ nodes: 2, gpusPerNode: 2, partition: 'p', account: 'a', qos: 'q', time: '10' },
      ...{ container: 'c.sif', module: ['m/1'], env: ['K=secret'], experiment: 'e', metricsFormat: 'jsonl' },
      ...{ param: ['lr=0.1'], launcher: 'torchrun', command: ['python3', 'train.py'] },
    });
    const plan = makePlan(s, { cwd: '/w', version: 't' });
    const rec = jobRecordFor(plan, 'slurm', new Date('2026-12-02T10:11:12Z'));
    expect(rec).toEqual({
      version: 1,
      name: 'train',
      executor: 'slurm',
      submitted_at: 1796206272,
      submit_dir: '/w',
      plan_digest: plan.digest,
      spec: {
        nodes: 2,
        tasks_per_node: 2,
        gpus_per_node: 2,
        world_size: 4,
        launcher: 'torchrun',
        backend: 'nccl',
        partition: 'p',
        account: 'a',
        qos: 'q',
        time: '10',
        track: 'none',
        container: 'c.sif',
        modules: ['m/1'],
        command: ['python3', 'train.py'],
        env_keys: ['K'],
        experiment: 'e',
        metrics_format: 'jsonl',
        mlflow_env: false,
        params: { lr: '0.1' },
      },
    });
    expect(JSON.stringify(rec)).not.toContain('secret');
  });
});
