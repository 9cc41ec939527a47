// Array jobs' run directories (core/rundir/array.ts): task-<N>/ made at submit with its record and
// parameters, `<job>_<task>` resolved to it, and a task directory that is a symlink refused.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { arrayTasks, createTaskDirs, recordArraySubmitted, runDirsOf } from '../../../core/rundir/array';
import { resolveRunDir } from '../../../core/rundir/job-index';
import { writeJobRecord } from '../../../core/rundir/job-record';
import type { JobRecord } from '../../../core/rundir/layout';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tl-array-'));
const TOP: JobRecord = {
  version: 1,
  name: 'sweep',
  executor: 'slurm',
  submitted_at: 1,
  plan_digest: 'd',
  spec: {
    nodes: 1,
    tasks_per_node: 1,
    gpus_per_node: 0,
    world_size: 1,
    launcher: 'srun',
    backend: 'gloo',
    modules: [],
    command: ['x.py'],
    env_keys: [],
    params: {},
  },
  array: { spec: '0,2', tasks: [0, 2] },
};

describe('array task directories', () => {
  const saved = process.env.XDG_STATE_HOME;
  afterAll(() => {
    if (saved === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = saved;
  });

  test('made before sbatch (0700, job.json, params.json), then given their job ids', () => {
    const top = tmp();
    writeJobRecord(top, TOP);
    createTaskDirs(top, TOP, (t) => (t === 2 ? { text: { lr: '0.1' }, raw: { lr: 0.1 } } : undefined));
    expect(runDirsOf(top)).toEqual([path.join(top, 'task-0'), path.join(top, 'task-2')]);
    const t2 = path.join(top, 'task-2');
    expect(fs.statSync(t2).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(t2).sort()).toEqual(['job.json', 'logs', 'params.json', 'rendezvous']);
    expect(JSON.parse(fs.readFileSync(path.join(t2, 'params.json'), 'utf8'))).toEqual({ lr: 0.1 });
    expect(fs.existsSync(path.join(top, 'task-0', 'params.json'))).toBe(false);
    recordArraySubmitted(top, '77', 'c1');
    const rec = JSON.parse(fs.readFileSync(path.join(t2, 'job.json'), 'utf8')) as JobRecord;
    expect(rec).toMatchObject({
      job_id: '77_2',
      cluster: 'c1',
      array_task: { task_id: 2, array_job_id: '77' },
    });
    expect(rec.spec.params).toEqual({ lr: '0.1' });
  });

  test('`<job>_<task>` resolves to the task directory; a task the array lacks is NOT_FOUND', () => {
    const state = tmp();
    process.env.XDG_STATE_HOME = state;
    const top = tmp();
    writeJobRecord(top, { ...TOP, job_id: '88' });
    createTaskDirs(top, TOP, () => undefined);
    fs.mkdirSync(path.join(state, 'track-launch'));
    fs.writeFileSync(
      path.join(state, 'track-launch', 'jobs.jsonl'),
      JSON.stringify({ job_id: '88', run_dir: top, executor: 'slurm', at: 0 }) + '\n',
    );
    expect(resolveRunDir('88')).toBe(top);
    expect(resolveRunDir('88_2')).toBe(path.join(top, 'task-2'));
    expect(() => resolveRunDir('88_1')).toThrow(/job 88_1: the array has no task 1 \(its tasks: 0,2\)/);
    expect(runDirsOf(path.join(top, 'task-2'))).toEqual([path.join(top, 'task-2')]);
  });

  test('a task directory that is a symlink is refused, never followed', () => {
    const top = tmp();
    writeJobRecord(top, TOP);
    fs.mkdirSync(path.join(top, 'task-0'));
    fs.symlinkSync(tmp(), path.join(top, 'task-2'));
    expect(() => arrayTasks(top)).toThrow(/task-2/);
  });
});
