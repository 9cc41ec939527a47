// Array jobs and sweeps (issue 16): --array parsing and expansion, --param-grid, the plan, task
// naming, and an array's per-task states from sacct and scontrol as recorded on the test cluster.
import { arrayOfSize, parseArraySpec } from '../../../launcher/spec/array-spec';
import { parseParamGrid } from '../../../launcher/spec/param-grid';
import { makePlan } from '../../../launcher/plan/plan';
import { jobRecordFor } from '../../../launcher/plan/job-record';
import {
  arrayState,
  mergeArrayStatus,
  parseSacctArray,
  parseScontrolArray,
} from '../../../launcher/slurm/array-status';
import { SlurmClient } from '../../../launcher/slurm/client';
import type { ProcessRunner } from '../../../launcher/slurm/run-process';
import { validateSubmit } from '../../../launcher/spec/validate';
import { taskRecord } from '../../../core/rundir/array';
import { parentName, parentTags } from '../../../tracking-plugin/ingest/tags';

const ctx = { cwd: '/home/u/p', now: new Date('2026-12-02T10:11:12Z') };
const tasks = (text: string) => {
  const s = parseArraySpec(text);
  return typeof s === 'string' ? s : s.tasks;
};

describe('--array SPEC', () => {
  test.each([
    ['0-2', [0, 1, 2]],
    ['1,3,5', [1, 3, 5]],
    ['0-15:4', [0, 4, 8, 12]],
    ['0-15:4%2', [0, 4, 8, 12]],
    ['7', [7]],
    ['3,1-2,3', [1, 2, 3]],
  ])('%s expands to its task ids', (text, ids) => expect(tasks(text)).toEqual(ids));

  test('the throttle is kept, the text goes to #SBATCH as given', () =>
    expect(parseArraySpec(' 0-15:4%2 ')).toEqual({ text: '0-15:4%2', tasks: [0, 4, 8, 12], throttle: 2 }));

  test.each([
    ['', /Slurm array indexes/],
    ['a-b', /not an index or range/],
    ['3-1', /ends before it starts/],
    ['0-4:0', /step .* at least 1/],
    ['0-2%0', /throttle must be at least 1/],
    ['1,,2', /not an index or range/],
    ['0-99999', /more than 10000 tasks/],
    ['0-2;x', /not an index or range/],
  ])('%j is refused: %s', (text, why) => expect(tasks(text)).toMatch(why));

  test('a grid of n sets makes 0-(n-1)', () => {
    expect(arrayOfSize(3)).toEqual({ text: '0-2', tasks: [0, 1, 2] });
    expect(arrayOfSize(1)).toEqual({ text: '0', tasks: [0] });
  });

  test('validated as an option: refused naming --array; --sbatch=--array points at it', () => {
    expect(() => validateSubmit({ array: '2-1', command: ['x.py'] }, ctx)).toThrow(/--array: .*ends before/);
    expect(() => validateSubmit({ sbatch: ['--array=0-3'], command: ['x.py'] }, ctx)).toThrow(
      /use --array \(-a\)/,
    );
    expect(validateSubmit({ array: '0-2%1', command: ['x.py'] }, ctx).array?.tasks).toEqual([0, 1, 2]);
  });
});

describe('--param-grid FILE (JSON lines)', () => {
  const grid = '{"lr": 0.1, "batch": 32, "warm": true}\n\n{"lr": 0.01, "batch": 64, "warm": false}\n';
  const read = (text: string) => ({ ...ctx, readParamGrid: () => text });

  test('one set per non-empty line: text for MLflow, the JSON values for params.json', () =>
    expect(parseParamGrid('g.jsonl', grid, ctx)).toEqual({
      sets: [
        { lr: '0.1', batch: '32', warm: 'true' },
        { lr: '0.01', batch: '64', warm: 'false' },
      ],
      raw: [
        { lr: 0.1, batch: 32, warm: true },
        { lr: 0.01, batch: 64, warm: false },
      ],
    }));

  test('a key that is also an Object property name ("__proto__", "constructor") is kept as a parameter', () => {
    const { sets, raw } = parseParamGrid('g.jsonl', '{"__proto__": 1, "constructor": "c", "lr": 0.1}\n', ctx);
    expect(JSON.parse(JSON.stringify(sets[0]))).toEqual(
      JSON.parse('{"__proto__": "1", "constructor": "c", "lr": "0.1"}'),
    );
    expect(Object.keys(sets[0])).toEqual(Object.keys(raw[0]));
  });

  test.each([
    ['{"lr": 0.1}\nnot json\n', /g\.jsonl line 2.*one JSON object/],
    ['[1, 2]\n', /one JSON object of parameters/],
    ['{"lr": [0.1]}\n', /strings, numbers or booleans/],
    ['{"job.nodes": 2}\n', /job\.\* parameters are logged by track-launch/],
    ['{"a b=c": 1}\n', /--param-grid: .*KEY of letters/],
    ['\n\n', /holds no parameter sets/],
  ])('%j is refused', (text, why) => expect(() => parseParamGrid('g.jsonl', text, ctx)).toThrow(why));

  test('makes the array 0-(n-1) unless --array is given; every task needs a set', () => {
    const spec = validateSubmit({ paramGrid: 'g.jsonl', command: ['x.py'] }, read(grid));
    expect(spec.array).toEqual({ text: '0-1', tasks: [0, 1] });
    expect(spec.paramGrid?.file).toBe('/home/u/p/g.jsonl');
    expect(
      validateSubmit({ paramGrid: 'g.jsonl', array: '1', command: ['x.py'] }, read(grid)).array?.tasks,
    ).toEqual([1]);
    expect(() =>
      validateSubmit({ paramGrid: 'g.jsonl', array: '0-2', command: ['x.py'] }, read(grid)),
    ).toThrow(/--array: .*task 2 has no parameter set: g\.jsonl has 2/);
  });

  test('the plan shows each task, its run directory and parameters; none are in the script', () => {
    const spec = validateSubmit({ paramGrid: 'g.jsonl', runDir: '/r/s', command: ['x.py'] }, read(grid));
    const plan = makePlan(spec, { cwd: '/home/u/p', version: 't' });
    expect(plan.tasks).toEqual([
      { task: 0, runDir: '/r/s/task-0', params: { lr: '0.1', batch: '32', warm: 'true' } },
      { task: 1, runDir: '/r/s/task-1', params: { lr: '0.01', batch: '64', warm: 'false' } },
    ]);
    expect(plan.argv).toContain('--output=/r/s/task-%a/logs/job.out');
    expect(plan.layout).toMatch(/array 0-1: 2 task\(s\)/);
    expect(plan.script).toContain('#SBATCH --array=0-1\n');
    expect(plan.script).not.toContain('0.01');
  });

  test('the local executor refuses an array, saying what to do', () =>
    expect(() =>
      makePlan(validateSubmit({ array: '0-1', command: ['x.py'] }, ctx), {
        cwd: '/',
        version: 't',
        executor: 'local',
      }),
    ).toThrow(/--array needs the Slurm executor/));
});

describe('task records and MLflow names', () => {
  const spec = validateSubmit(
    { array: '0-2', runDir: '/r/a', name: 'sweep', param: ['seed=1'], command: ['x.py'] },
    ctx,
  );
  const top = {
    ...jobRecordFor(makePlan(spec, { cwd: '/', version: 't' }), 'slurm', ctx.now),
    job_id: '123',
  };

  test("the array's record holds the spec and the task ids", () =>
    expect(top.array).toEqual({ spec: '0-2', tasks: [0, 1, 2] }));

  test("a task's record: its own job id, the task's parameters over the job's, no array spec or state", () => {
    const t = taskRecord({ ...top, state: { name: 'RUNNING' } }, 2, { lr: '0.1' });
    expect(t).toMatchObject({ job_id: '123_2', array_task: { task_id: 2, array_job_id: '123' } });
    expect(t.spec.params).toEqual({ seed: '1', lr: '0.1' });
    expect(t.array).toBeUndefined();
    expect(t.state).toBeUndefined();
    expect(taskRecord({ ...top, job_id: undefined }, 0).job_id).toBeUndefined();
  });

  test('its parent run is `<name> #<job>_<task>`, tagged with the array job and task ids', () => {
    const t = taskRecord(top, 2);
    expect(parentName(t, '/r/a/task-2')).toBe('sweep #123_2');
    const tags = Object.fromEntries(
      parentTags(t, '/r/a/task-2', 'k', undefined, { user: 'u' }).map((x) => [x.key, x.value]),
    );
    expect(tags).toMatchObject({
      'slurm.job_id': '123_2',
      'slurm.array_job_id': '123',
      'slurm.array_task_id': '2',
    });
  });
});

// Recorded on the test cluster (Slurm 22.05), array job 122 (--array=0-2%2) while task 2 waited.
const SACCT_RUNNING = `122_0|RUNNING|0:0|tlnode1|2026-12-03T10:28:41|Unknown|00:00:02|None
122_0.batch|RUNNING|0:0|tlnode1|2026-12-03T10:28:41|Unknown|00:00:02|
122_1|COMPLETED|0:0|tlnode2|2026-12-03T10:28:41|2026-12-03T10:28:45|00:00:04|None
122_[2]|PENDING|0:0|None assigned|Unknown|Unknown|00:00:00|JobArrayTaskLimit
1220_1|FAILED|1:0|tlnode3|2026-12-03T10:28:41|2026-12-03T10:28:45|00:00:04|None
`;
const SCONTROL = [
  'JobId=122 ArrayJobId=122 ArrayTaskId=2 ArrayTaskThrottle=2 JobName=wrap JobState=PENDING Reason=JobArrayTaskLimit ExitCode=0:0 NodeList=(null)',
  'JobId=124 ArrayJobId=122 ArrayTaskId=1 ArrayTaskThrottle=2 JobName=wrap JobState=FAILED Reason=NonZeroExitCode ExitCode=3:0 NodeList=tlnode2',
  'JobId=123 ArrayJobId=122 ArrayTaskId=0 ArrayTaskThrottle=2 JobName=wrap JobState=RUNNING Reason=None ExitCode=0:0 NodeList=tlnode1',
].join('\n');

describe("an array's states", () => {
  test('sacct: each task line, the pending tasks line expanded, other jobs and steps ignored', () => {
    const m = parseSacctArray('122', SACCT_RUNNING);
    expect([...m.entries()].map(([t, s]) => [t, s.jobId, s.state])).toEqual([
      [0, '122_0', 'RUNNING'],
      [1, '122_1', 'COMPLETED'],
      [2, '122_2', 'PENDING'],
    ]);
  });

  test('scontrol: one line per task record; a pending range gives each of its tasks', () => {
    const m = parseScontrolArray('122', SCONTROL.replace('ArrayTaskId=2 ', 'ArrayTaskId=2-4%2 '));
    expect([...m.entries()].map(([t, s]) => [t, s.state, s.exitCode])).toEqual([
      [2, 'PENDING', 0],
      [3, 'PENDING', 0],
      [4, 'PENDING', 0],
      [1, 'FAILED', 3],
      [0, 'RUNNING', 0],
    ]);
  });

  test("per task, slurmctld's state while it knows the task, else accounting's", () => {
    const m = mergeArrayStatus(parseSacctArray('122', SACCT_RUNNING), parseScontrolArray('122', SCONTROL));
    expect([0, 1, 2].map((t) => [m.get(t)?.state, m.get(t)?.source])).toEqual([
      ['RUNNING', 'scontrol'],
      ['FAILED', 'scontrol'],
      ['PENDING', 'scontrol'],
    ]);
    const forgotten = mergeArrayStatus(
      parseSacctArray('122', SACCT_RUNNING),
      parseScontrolArray('122', SCONTROL.split('\n')[0]),
    );
    expect([0, 1, 2].map((t) => [forgotten.get(t)?.state, forgotten.get(t)?.source])).toEqual([
      ['RUNNING', 'sacct'],
      ['COMPLETED', 'sacct'],
      ['PENDING', 'scontrol'],
    ]);
  });

  test('SlurmClient.arrayStatus: one sacct and one scontrol call for all tasks', async () => {
    const calls: string[][] = [];
    const run: ProcessRunner = async (argv) => {
      calls.push(argv);
      return { argv, code: 0, stdout: argv[0] === 'sacct' ? SACCT_RUNNING : SCONTROL, stderr: '' };
    };
    const m = await new SlurmClient(run).arrayStatus('122');
    expect(m.size).toBe(3);
    expect(calls.map((c) => c[0])).toEqual(['sacct', 'scontrol']);
    const down: ProcessRunner = async (argv) => ({
      argv,
      code: 1,
      stdout: '',
      stderr: 'Unable to contact slurm controller',
    });
    await expect(new SlurmClient(down).arrayStatus('122')).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
  });

  test.each([
    [['PENDING', 'PENDING'], 'PENDING', false],
    [['COMPLETED', 'PENDING'], 'PENDING', false],
    [['RUNNING', 'PENDING', 'COMPLETED'], 'RUNNING', false],
    [['COMPLETED', 'COMPLETED'], 'COMPLETED', true],
    [['COMPLETED', 'CANCELLED'], 'CANCELLED', true],
    [['CANCELLED', 'FAILED', 'COMPLETED'], 'FAILED', true],
  ] as const)('tasks %j: the array is %s (ended %s)', (states, want, ended) =>
    expect(arrayState(states.map((state) => ({ state })))).toMatchObject({ state: want, ended }),
  );

  test("the array's exit code is its tasks' largest", () =>
    expect(
      arrayState([
        { state: 'FAILED', exitCode: 3 },
        { state: 'COMPLETED', exitCode: 0 },
      ]),
    ).toEqual({
      state: 'FAILED',
      exitCode: 3,
      ended: true,
    }));
});
