// The `report` command through yargs, as the CLI's main will register it.
import * as fs from 'fs';
import * as path from 'path';
import yargs from 'yargs';
import { reportCommand } from '../../../cli/commands/report';
import { runUrlOf } from '../../../cli/mlflow-link';
import { POLYNOMIAL_1, POLYNOMIAL_3, tmpDir } from './helpers/check-output';

jest.setTimeout(60_000);

const run = (argv: string[]) =>
  yargs(argv)
    .option('json', { type: 'boolean' })
    .command(reportCommand)
    .strict()
    .exitProcess(false)
    .fail((msg, err) => {
      throw err ?? new Error(msg);
    })
    .parseAsync();

describe('track-launch report', () => {
  let log: jest.SpyInstance;
  beforeEach(() => {
    log = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => log.mockRestore());

  it('renders a run dir into --out with --format png and prints the files', async () => {
    const out = tmpDir('cmd');
    await run(['report', POLYNOMIAL_3, '--out', out, '--format', 'png']);
    expect(fs.readdirSync(out).sort()).toEqual([
      'evaluation.png',
      'loss.png',
      'stragglers.png',
      'summary.png',
    ]);
    expect(log.mock.calls.map((c) => String(c[0]))).toContain(`wrote ${path.join(out, 'summary.png')}\n`);
  });

  it('--json on an array job: one document, a report per task under tasks', async () => {
    const top = path.join(tmpDir('cmd-array'), 'run');
    fs.cpSync(POLYNOMIAL_3, top, { recursive: true });
    const job = JSON.parse(fs.readFileSync(path.join(top, 'job.json'), 'utf8'));
    fs.writeFileSync(
      path.join(top, 'job.json'),
      JSON.stringify({ ...job, array: { spec: '0-1', tasks: [0, 1] } }),
    );
    for (const t of [0, 1]) fs.cpSync(POLYNOMIAL_3, path.join(top, `task-${t}`), { recursive: true });
    const out = tmpDir('cmd-array-out');
    await run(['report', top, '--json', '--format', 'pdf', '--out', out]);
    const doc = JSON.parse(log.mock.calls.map((c) => String(c[0])).join(''));
    expect(doc.tasks.map((t: { files: string[] }) => t.files)).toEqual([
      [path.join(out, 'task-0', 'report.pdf')],
      [path.join(out, 'task-1', 'report.pdf')],
    ]);
  });

  it('--compare renders several jobs on one chart', async () => {
    const out = tmpDir('cmd-compare');
    await run(['report', '--compare', POLYNOMIAL_1, POLYNOMIAL_3, '--out', out, '--format', 'pdf']);
    expect(fs.readdirSync(out)).toEqual(['compare.pdf']);
  });

  it('finds a job id in the job index, and says so when it is not there', async () => {
    const state = tmpDir('state');
    const saved = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = state;
    try {
      fs.mkdirSync(path.join(state, 'track-launch'));
      const line = { job_id: '4242', run_dir: POLYNOMIAL_3, executor: 'slurm', at: 0 };
      fs.writeFileSync(path.join(state, 'track-launch', 'jobs.jsonl'), JSON.stringify(line) + '\n');
      const out = tmpDir('cmd-job');
      await run(['report', '4242', '--out', out, '--format', 'pdf']);
      expect(fs.readdirSync(out)).toEqual(['report.pdf']);
      await expect(run(['report', '4343', '--out', out])).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      if (saved === undefined) delete process.env.XDG_STATE_HOME;
      else process.env.XDG_STATE_HOME = saved;
    }
  });

  it('prints files and notes as JSON with --json', async () => {
    const out = tmpDir('cmd-json');
    await run(['report', POLYNOMIAL_3, '--out', out, '--format', 'pdf', '--json']);
    const printed = JSON.parse(log.mock.calls.map((c) => String(c[0])).join(''));
    expect(printed).toEqual({
      out_dir: out,
      files: [path.join(out, 'report.pdf')],
      notes: [expect.stringMatching(/^No resource samples in .*: no resource pages/)],
    });
  });

  it('writes report.html by default, and takes --smooth and --x-axis', async () => {
    const out = tmpDir('cmd-html');
    await run(['report', POLYNOMIAL_3, '--out', out, '--smooth', '0.6', '--x-axis', 'time']);
    expect(fs.readdirSync(out)).toContain('report.html');
    expect(fs.readdirSync(out)).toContain('report.pdf');
    await expect(run(['report', POLYNOMIAL_3, '--out', out, '--smooth', '1'])).rejects.toMatchObject({
      code: 'INVALID_SPEC',
    });
    // yargs refuses a choice synchronously, from its fail handler
    expect(() => run(['report', POLYNOMIAL_3, '--out', out, '--x-axis', 'wall'])).toThrow(/x-axis/);
  });

  it('links the parent MLflow run without the credentials of the tracking URI', () => {
    const tracked = {
      trackingUri: 'https://me:secret@mlflow.example/',
      experimentId: '7',
      parentRunId: 'r1',
      rankRunIds: {},
    };
    expect(runUrlOf(tracked)).toBe(
      'https://mlflow.example/#/experiments/7/runs/r1?workflowType=machine_learning',
    );
    expect(runUrlOf(undefined)).toBeUndefined();
    expect(runUrlOf({ ...tracked, trackingUri: 'file:///tmp/mlruns' })).toBeUndefined();
  });

  it('refuses two targets without --compare', async () => {
    await expect(run(['report', POLYNOMIAL_1, POLYNOMIAL_3, '--out', tmpDir('x')])).rejects.toMatchObject({
      code: 'USAGE',
    });
  });
});
