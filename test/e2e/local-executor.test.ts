// Issue 5's end-to-end check: the local executor runs the polynomial example (real torch, gloo)
// through the same bootstrap and discovery, tracks it into a real MLflow server, renders reports.
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'bin', 'track-launch.js');
const PY = process.env.TRACK_LAUNCH_TEST_PYTHON ?? '/usr/bin/python3';
jest.setTimeout(240_000);

function mlflowUri(): string {
  const f = path.join(ROOT, 'test', 'mlflow', '.state', 'uri');
  if (!fs.existsSync(f)) throw new Error('no MLflow test server: run test/mlflow/up (npm test starts it)');
  return fs.readFileSync(f, 'utf8').trim();
}

function cli(args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 200_000 });
}

const lossLines = (text: string) => [
  ...text.matchAll(/^epoch (\d+), loss = ([\d.e+-]+), rank (\d+)\/3 \(.+\)\.$/gm),
];

describe('local executor, end to end', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-e2e-'));
  const baseEnv = {
    ...process.env,
    XDG_STATE_HOME: path.join(tmp, 'state'),
    PATH: `/usr/bin:/bin:${path.dirname(process.execPath)}`,
  };

  test('polynomial on 3 local ranks: logs, MLflow runs, reports', async () => {
    const uri = mlflowUri();
    const runDir = path.join(tmp, 'poly');
    const experiment = `e2e-local-${Date.now()}`;
    const r = cli(
      [
        'submit',
        '--executor',
        'local',
        '-N',
        '3',
        '--run-dir',
        runDir,
        '--experiment',
        experiment,
        '--follow',
        '--',
        PY,
        'examples/polynomial/train.py',
        '--epochs',
        '300',
        '--log-every',
        '50',
      ],
      { ...baseEnv, MLFLOW_TRACKING_URI: uri },
    );
    expect(r.status).toBe(0);

    for (const rank of [0, 1, 2]) {
      const lines = lossLines(fs.readFileSync(path.join(runDir, 'logs', `rank-${rank}.out`), 'utf8'));
      expect(lines.map((m) => Number(m[1]))).toEqual([0, 50, 100, 150, 200, 250, 299]);
      expect(lines.every((m) => Number(m[3]) === rank)).toBe(true);
      expect(Number(lines[lines.length - 1][2])).toBeLessThan(Number(lines[0][2]));
    }
    const job = JSON.parse(fs.readFileSync(path.join(runDir, 'job.json'), 'utf8'));
    expect(job.executor).toBe('local');
    expect(job.state.name).toBe('COMPLETED');

    // The report files, also attached to the parent run.
    const reports = fs.readdirSync(path.join(runDir, 'reports')).sort();
    expect(reports).toEqual(
      expect.arrayContaining(['report.pdf', 'loss.png', 'evaluation.png', 'summary.png', 'stragglers.png']),
    );
    expect(r.stderr).toContain(path.join(runDir, 'reports', 'report.pdf'));

    // Read back with the official Python client.
    const check = spawnSync(
      path.join(ROOT, '.venv', 'bin', 'python'),
      [
        '-c',
        `
import json, sys, mlflow
c = mlflow.MlflowClient(sys.argv[1])
exp = c.get_experiment_by_name(sys.argv[2])
runs = c.search_runs([exp.experiment_id])
parent = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
kids = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent[0].info.run_id]
print(json.dumps({
  "parents": len(parent), "status": parent[0].info.status,
  "kids": sorted((r.info.run_name, r.data.tags.get("rank"), len(c.get_metric_history(r.info.run_id, "loss"))) for r in kids),
  "reports": sorted(f.path for f in c.list_artifacts(parent[0].info.run_id, "reports")),
}))`,
        uri,
        experiment,
      ],
      { encoding: 'utf8' },
    );
    expect(check.stderr).not.toMatch(/Traceback/);
    const got = JSON.parse(check.stdout);
    expect(got.parents).toBe(1);
    expect(got.status).toBe('FINISHED');
    expect(got.kids).toEqual([
      ['rank-0', '0', 7],
      ['rank-1', '1', 7],
      ['rank-2', '2', 7],
    ]);
    expect(got.reports).toEqual(expect.arrayContaining(['reports/report.pdf', 'reports/loss.png']));
  });

  test('status, logs and cancel work on a local job; cancel leaves it CANCELLED (KILLED in MLflow)', async () => {
    const runDir = path.join(tmp, 'long');
    const sub = cli(
      [
        'submit',
        '--executor',
        'local',
        '-N',
        '2',
        '--run-dir',
        runDir,
        '--json',
        '--',
        PY,
        'examples/polynomial/train.py',
        '--epochs',
        '10000000',
        '--log-every',
        '1000',
      ],
      baseEnv,
    );
    expect(sub.status).toBe(0);
    const { job_id: jobId } = JSON.parse(sub.stdout);
    expect(jobId).toMatch(/^local-/);
    const deadline = Date.now() + 60_000;
    let st: { job: { state: { name: string } }; ranks: unknown[] } | undefined;
    while (Date.now() < deadline) {
      const out = cli(['status', jobId, '--json'], baseEnv);
      st = JSON.parse(out.stdout);
      if (!st!.job) throw new Error(`status --json: ${out.stdout} ${out.stderr}`);
      if (
        st!.job.state.name === 'RUNNING' &&
        st!.ranks.length === 2 &&
        fs.existsSync(path.join(runDir, 'logs', 'rank-1.out')) &&
        /epoch 0,/.test(fs.readFileSync(path.join(runDir, 'logs', 'rank-1.out'), 'utf8'))
      )
        break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(st!.job.state.name).toBe('RUNNING');
    const logs = cli(['logs', jobId, '--rank', '1'], baseEnv);
    expect(logs.stdout).toBe(fs.readFileSync(path.join(runDir, 'logs', 'rank-1.out'), 'utf8'));
    expect(cli(['cancel', jobId], baseEnv).status).toBe(0);
    let name = '';
    for (let i = 0; i < 60 && name !== 'CANCELLED'; i++) {
      await new Promise((r) => setTimeout(r, 500));
      name = JSON.parse(cli(['status', jobId, '--json'], baseEnv).stdout).job.state.name;
    }
    expect(name).toBe('CANCELLED');
    // Every rank process is gone.
    const facts = [0, 1].map((r) =>
      JSON.parse(fs.readFileSync(path.join(runDir, 'logs', `rank-${r}.json`), 'utf8')),
    );
    expect(facts.every((f) => f.exit_code !== undefined)).toBe(true);
  });

  test('Ctrl-C while following stops every rank and marks the run CANCELLED', async () => {
    const runDir = path.join(tmp, 'ctrlc');
    const child = spawn(
      process.execPath,
      [
        CLI,
        'submit',
        '--executor',
        'local',
        '-N',
        '2',
        '--run-dir',
        runDir,
        '--follow',
        '--poll',
        '0.5',
        '--',
        PY,
        'examples/polynomial/train.py',
        '--epochs',
        '10000000',
      ],
      { cwd: ROOT, env: baseEnv, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const deadline = Date.now() + 60_000;
    while (!/ranks started 2\/2/.test(err) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(err).toContain('cancelling job');
    expect(code).toBe(5);
    const job = JSON.parse(fs.readFileSync(path.join(runDir, 'job.json'), 'utf8'));
    expect(job.state.name).toBe('CANCELLED');
    expect(fs.readdirSync(path.join(runDir, 'rendezvous'))).toEqual([]);
  });
});
