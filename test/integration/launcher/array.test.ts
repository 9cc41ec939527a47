// Issue 16, item 2: array jobs and sweeps on the real test cluster. A 3-task sweep (--param-grid)
// leaves 3 task run directories with one training each, 3 MLflow parent runs (read back with the
// official Python client) each with its rank run and points, and `status <job>` lists the tasks;
// `cancel <job>_<task>` cancels that task only.
import * as fs from 'fs';
import * as path from 'path';
import type { JobRecord } from '../../../core/rundir/layout';
import { mlflowUp, readBackWithPython, uniqueName } from '../tracking/server';
import {
  PYTHON,
  TRAIN,
  cancelJobs,
  cli,
  clusterEnv,
  jobIdOf,
  logFile,
  parseSeedLine,
  requireCluster,
  said,
  statusJson,
  tmpDir,
  waitFor,
} from './cluster';

jest.setTimeout(300_000);

const GRID = [
  { lr: 0.002, batch: 16 },
  { lr: 0.001, batch: 32 },
  { lr: 0.0005, batch: 64 },
];

/** Each rank says which task it is and what it got, then trains with the task's learning rate. */
const TRAINING = [
  'bash',
  '-c',
  'lr=$("$0" -c "import json, os; print(json.load(open(os.environ[\'TRACK_LAUNCH_PARAMS_FILE\']))[\'lr\'])"); ' +
    'echo "array task $TRACK_LAUNCH_ARRAY_TASK of $SLURM_ARRAY_JOB_ID lr $lr"; ' +
    'exec "$0" "$1" --epochs 300 --log-every 50 --lr "$lr"',
  PYTHON,
  TRAIN,
];

interface TaskRow {
  task: number;
  job_id: string;
  run_dir: string;
  state?: { name: string };
}

const record = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'job.json'), 'utf8')) as JobRecord;

describe('array jobs', () => {
  const jobs: string[] = [];
  beforeAll(() => requireCluster());
  afterAll(() => cancelJobs(jobs, clusterEnv()));

  it('a 3-task sweep: 3 run dirs with one training each, 3 MLflow parent runs, status lists the tasks', async () => {
    const uri = mlflowUp();
    const env = clusterEnv({ MLFLOW_TRACKING_URI: uri });
    const dir = tmpDir('array');
    const runDir = path.join(dir, 'run');
    const grid = path.join(dir, 'grid.jsonl');
    fs.writeFileSync(grid, GRID.map((g) => JSON.stringify(g)).join('\n') + '\n');
    const experiment = uniqueName('array');
    const r = await cli(
      [
        'submit',
        '-N',
        '1',
        '--param-grid',
        grid,
        '--run-dir',
        runDir,
        '--experiment',
        experiment,
        '--follow',
        '--',
        ...TRAINING,
      ],
      { env, timeoutMs: 280_000 },
    );
    const jobId = jobIdOf(r);
    jobs.push(jobId);
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 0 });
    expect(r.stderr).toContain('array 0-2: 3 task(s)');

    // The array's own directory: the job record (spec 0-2, its id) and the script.
    const top = record(runDir);
    expect(top).toMatchObject({ job_id: jobId, array: { spec: '0-2', tasks: [0, 1, 2] } });
    expect(fs.readFileSync(path.join(runDir, 'job.sbatch'), 'utf8')).toContain('#SBATCH --array=0-2\n');

    const experimentIds = new Set<string>();
    for (const [task, params] of GRID.entries()) {
      const taskDir = path.join(runDir, `task-${task}`);
      const rec = record(taskDir);
      expect(rec).toMatchObject({
        job_id: `${jobId}_${task}`,
        array_task: { task_id: task, array_job_id: jobId },
        state: { name: 'COMPLETED' },
      });
      // Exactly one training in this task's log, with its own task id and parameters.
      const out = fs.readFileSync(logFile(taskDir, 'rank-0.out'), 'utf8').split('\n');
      expect(out.filter((l) => /^Running DDP on rank \d+\/\d+\.$/.test(l))).toEqual([
        'Running DDP on rank 0/1.',
      ]);
      expect(out.filter((l) => l.startsWith('array task '))).toEqual([
        `array task ${task} of ${jobId} lr ${params.lr}`,
      ]);
      const seed = out.map(parseSeedLine).filter((s) => s !== undefined);
      expect(seed.map((s) => s.epoch)).toEqual([0, 50, 100, 150, 200, 250, 299]);
      expect(JSON.parse(fs.readFileSync(path.join(taskDir, 'params.json'), 'utf8'))).toEqual(params);
      expect(fs.readdirSync(path.join(taskDir, 'reports'))).toContain('report.pdf');

      // Its own parent run in MLflow, with its rank run and every point once.
      const state = JSON.parse(fs.readFileSync(path.join(taskDir, 'tracking', 'state.json'), 'utf8')) as {
        job_key: string;
      };
      const remote = fs.readdirSync(path.join(taskDir, 'tracking')).find((f) => /^mlflow-.*\.json$/.test(f));
      const experimentId = (
        JSON.parse(fs.readFileSync(path.join(taskDir, 'tracking', remote as string), 'utf8')) as {
          experiment_id: string;
        }
      ).experiment_id;
      experimentIds.add(experimentId);
      const runs = readBackWithPython(uri, experimentId, state.job_key);
      const parent = runs.filter((x) => x.tags['track_launch.role'] === 'parent');
      const ranks = runs.filter((x) => x.tags['track_launch.role'] === 'rank');
      expect(parent).toHaveLength(1);
      expect(parent[0]).toMatchObject({
        run_name: `train #${jobId}_${task}`,
        status: 'FINISHED',
        tags: {
          'slurm.array_job_id': jobId,
          'slurm.array_task_id': String(task),
          'slurm.job_id': `${jobId}_${task}`,
        },
        params: { lr: String(params.lr), batch: String(params.batch) },
      });
      expect(ranks.map((x) => x.run_name)).toEqual(['rank-0']);
      expect(ranks[0].tags['mlflow.parentRunId']).toBe(parent[0].run_id);
      expect(ranks[0].history.loss.map(([step]) => step).sort((a, b) => a - b)).toEqual(
        seed.map((s) => s.epoch),
      );
    }
    expect(experimentIds.size).toBe(1); // one experiment, the tasks side by side in it

    // status <job>: the tasks with their states; status <job>_<task>: that task.
    const s = (await statusJson(jobId, env)) as Awaited<ReturnType<typeof statusJson>> & { tasks: TaskRow[] };
    expect(s.job.state?.name).toBe('COMPLETED');
    expect(s.tasks.map((t) => [t.task, t.job_id, t.state?.name])).toEqual(
      [0, 1, 2].map((t) => [t, `${jobId}_${t}`, 'COMPLETED']),
    );
    const text = await cli(['status', jobId], { env });
    for (const t of [0, 1, 2]) expect(text.stdout).toMatch(new RegExp(`task ${t}  ${jobId}_${t}  COMPLETED`));
    const one = await statusJson(`${jobId}_1`, env);
    expect(one.run_dir).toBe(path.join(runDir, 'task-1'));
    expect(one.ranks).toHaveLength(1);

    // ingest of the whole array again: nothing new, every task complete; report --compare: one line per task.
    const again = await cli(['ingest', jobId, '--json', '--no-report'], { env });
    expect({ code: again.code, out: said(again) }).toMatchObject({ code: 0 });
    const tasks = (JSON.parse(again.stdout) as { tasks: Array<{ complete: boolean; runDir: string }> }).tasks;
    expect(tasks.map((t) => [t.runDir, t.complete])).toEqual(
      [0, 1, 2].map((t) => [path.join(runDir, `task-${t}`), true]),
    );
    const cmp = await cli(['report', '--compare', jobId, '--format', 'png', '--out', path.join(dir, 'cmp')], {
      env,
    });
    expect({ code: cmp.code, out: said(cmp) }).toMatchObject({ code: 0 });
    expect(fs.existsSync(path.join(dir, 'cmp', 'compare.png'))).toBe(true);
  });

  it('cancel <job>_<task> cancels that task only', async () => {
    const env = clusterEnv();
    const runDir = path.join(tmpDir('array-cancel'), 'run');
    const r = await cli(
      [
        'submit',
        '-N',
        '1',
        '--array',
        '0-1',
        '--run-dir',
        runDir,
        '--',
        PYTHON,
        TRAIN,
        '--epochs',
        '1000000',
        '--log-every',
        '500',
      ],
      { env },
    );
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 0 });
    const jobId = jobIdOf(r);
    jobs.push(jobId);
    const started = (task: number) =>
      fs.existsSync(logFile(path.join(runDir, `task-${task}`), 'rank-0.json'));
    await waitFor('both tasks to start', () => started(0) && started(1), 90_000, 1000);

    const c = await cli(['cancel', `${jobId}_1`], { env });
    expect({ code: c.code, out: said(c) }).toMatchObject({ code: 0 });
    expect(c.stderr).toContain(`cancelled job ${jobId}_1`);
    const tasksOf = async () =>
      ((await statusJson(jobId, env)) as unknown as { tasks: TaskRow[] }).tasks.map((t) => t.state?.name);
    const states = await waitFor(
      'task 1 to be CANCELLED',
      async () => {
        const t = await tasksOf();
        return t[1] === 'CANCELLED' && t;
      },
      60_000,
      1000,
    );
    expect(states[0]).toBe('RUNNING');

    const all = await cli(['cancel', jobId], { env });
    expect({ code: all.code, out: said(all) }).toMatchObject({ code: 0 });
    await waitFor(
      'the array to end',
      async () => (await statusJson(jobId, env)).job.state?.name === 'CANCELLED',
      60_000,
      1000,
    );
  });
});
