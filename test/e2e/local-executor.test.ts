// Issue 5's end-to-end check: the local executor runs the polynomial example (real torch, gloo)
// through the same bootstrap and discovery, tracks it into a real MLflow server, renders reports.
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { mlflowPython, mlflowUp } from '../integration/tracking/server';
import { pdfPages, pdfText, pngInk, pngSize } from '../unit/reports/helpers/check-output';
import { CLI, readJob, ROOT, runCli, sigkillAll, sleep } from './local-helpers';

const PY = process.env.TRACK_LAUNCH_TEST_PYTHON ?? '/usr/bin/python3';
jest.setTimeout(240_000);

/** The shared MLflow test server (test/mlflow/up reuses a running one). */
const mlflowUri = (): string => mlflowUp();

/** Alive and not a zombie. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false; // gone between the two looks
  }
}

/**
 * Every process of a job, from /proc: the supervisor and the job script name the run dir on
 * their command line, and everything the script starts (bootstraps, ranks, log copiers) has
 * TRACK_LAUNCH_RUN_DIR=<run dir> in its environment. `except`: pids to leave out (the CLI).
 */
function jobProcesses(runDir: string, except: number[] = []): Map<number, string> {
  const found = new Map<number, string>();
  for (const name of fs.readdirSync('/proc')) {
    const pid = Number(name);
    if (!/^\d+$/.test(name) || pid === process.pid || except.includes(pid)) continue;
    const read = (what: string) => {
      try {
        return fs.readFileSync(`/proc/${name}/${what}`, 'utf8').split('\0');
      } catch {
        return []; // exited while we looked, or not ours to read
      }
    };
    const cmd = read('cmdline').join(' ').trim();
    if (cmd.includes(runDir) || read('environ').includes(`TRACK_LAUNCH_RUN_DIR=${runDir}`))
      found.set(pid, cmd);
  }
  return found;
}

/** SIGKILL whatever of a job a failed test left behind (the CLI too), so no rank outlives the test. */
function killLeftovers(runDir: string, cli?: { pid?: number; exitCode: number | null }): void {
  sigkillAll([...jobProcesses(runDir).keys(), ...(cli?.exitCode === null && cli.pid ? [cli.pid] : [])]);
}

/** The CLI's exit code, or 'still following' when it has not exited within `ms` (a lost Ctrl-C). */
const exitWithin = (exited: Promise<number | null>, ms: number) =>
  Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('still following'), ms).unref())]);

/** The parent MLflow run of an experiment, read back with the official Python client. */
function parentRunStatus(uri: string, experiment: string): { parents: number; status?: string } {
  const r = spawnSync(
    mlflowPython(),
    [
      '-c',
      `
import json, sys, mlflow
c = mlflow.MlflowClient(sys.argv[1])
exp = c.get_experiment_by_name(sys.argv[2])
runs = c.search_runs([exp.experiment_id]) if exp else []
parent = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
print(json.dumps({"parents": len(parent), "status": parent[0].info.status if parent else None}))`,
      uri,
      experiment,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`reading MLflow back failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** A job's runs in an experiment, read back with the official Python client: the parent's status and
 *  end time, and each rank run's name and status. */
function jobRunStatuses(
  uri: string,
  experiment: string,
): { parents: number; status?: string; endTime?: number; ranks: [string, string][] } {
  const r = spawnSync(
    mlflowPython(),
    [
      '-c',
      `
import json, sys, mlflow
c = mlflow.MlflowClient(sys.argv[1])
exp = c.get_experiment_by_name(sys.argv[2])
runs = c.search_runs([exp.experiment_id]) if exp else []
parent = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
kids = [r for r in runs if parent and r.data.tags.get("mlflow.parentRunId") == parent[0].info.run_id]
print(json.dumps({
  "parents": len(parent),
  "status": parent[0].info.status if parent else None,
  "endTime": parent[0].info.end_time if parent else None,
  "ranks": sorted([r.info.run_name, r.info.status] for r in kids),
}))`,
      uri,
      experiment,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`reading MLflow back failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const cli = (args: string[], env: NodeJS.ProcessEnv) => runCli(args, env, 200_000);

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
    const job = readJob(runDir);
    expect(job.executor).toBe('local');
    expect(job.state.name).toBe('COMPLETED');

    // The report files, also attached to the parent run.
    const reports = fs.readdirSync(path.join(runDir, 'reports')).sort();
    expect(reports).toEqual(
      expect.arrayContaining(['report.pdf', 'loss.png', 'evaluation.png', 'summary.png', 'stragglers.png']),
    );
    expect(r.stderr).toContain(path.join(runDir, 'reports', 'report.pdf'));
    // What is in them: real pages with searchable text, charts with ink.
    const pdf = path.join(runDir, 'reports', 'report.pdf');
    expect(pdfPages(pdf)).toBeGreaterThanOrEqual(3);
    const text = pdfText(pdf);
    // Axis titles on lines of their own (the loss axis is log-scaled only for a wide range), the
    // legend of every rank, the summary page.
    expect(text).toMatch(/^\s*loss( \(log scale\))?\s*$/m);
    expect(text).toMatch(/^\s*step\s*$/m);
    for (const s of [
      'loss against step',
      'rank 0 (',
      'rank 1 (',
      'rank 2 (',
      'mean over ranks',
      'Final loss',
    ]) {
      expect(text).toContain(s);
    }
    for (const png of ['loss.png', 'evaluation.png', 'summary.png', 'stragglers.png']) {
      const file = path.join(runDir, 'reports', png);
      const { width, height } = pngSize(file);
      // the summary page grows with its table and notes instead of cutting them off
      expect({ width, tall: png === 'summary.png' ? height >= 1120 : height === 1120 }).toEqual({
        width: 2000,
        tall: true,
      });
      const { ink, transparent } = await pngInk(file);
      expect(transparent).toBe(false);
      expect(ink).toBeGreaterThan(0.01);
    }

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
      await sleep(500);
    }
    expect(st!.job.state.name).toBe('RUNNING');
    const logs = cli(['logs', jobId, '--rank', '1'], baseEnv);
    expect(logs.stdout).toBe(fs.readFileSync(path.join(runDir, 'logs', 'rank-1.out'), 'utf8'));
    expect(cli(['cancel', jobId], baseEnv).status).toBe(0);
    let name = '';
    for (let i = 0; i < 60 && name !== 'CANCELLED'; i++) {
      await sleep(500);
      name = JSON.parse(cli(['status', jobId, '--json'], baseEnv).stdout).job.state.name;
    }
    expect(name).toBe('CANCELLED');
    // Every rank process is gone.
    const facts = [0, 1].map((r) =>
      JSON.parse(fs.readFileSync(path.join(runDir, 'logs', `rank-${r}.json`), 'utf8')),
    );
    expect(facts.every((f) => f.exit_code !== undefined)).toBe(true);

    // Synced to the real MLflow server afterwards (the job ran offline): the cancelled job's parent
    // and rank runs are KILLED, and the parent ended when the job did.
    const uri = mlflowUri();
    const experiment = `e2e-local-cancel-${Date.now()}`;
    const sync = cli(['sync', runDir, '--experiment', experiment], {
      ...baseEnv,
      MLFLOW_TRACKING_URI: uri,
    });
    expect({ code: sync.status, err: sync.status === 0 ? '' : sync.stderr }).toEqual({ code: 0, err: '' });
    const endedAt = readJob(runDir).state.ended_at;
    expect(jobRunStatuses(uri, experiment)).toEqual({
      parents: 1,
      status: 'KILLED',
      endTime: Math.round(endedAt * 1000),
      ranks: [
        ['rank-0', 'KILLED'],
        ['rank-1', 'KILLED'],
      ],
    });
  });

  test('Ctrl-C while following stops every rank and marks the run CANCELLED (KILLED in MLflow)', async () => {
    const uri = mlflowUri();
    const experiment = `e2e-local-ctrlc-${Date.now()}`;
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
        '--experiment',
        experiment,
        '--follow',
        '--poll',
        '0.5',
        '--',
        PY,
        'examples/polynomial/train.py',
        '--epochs',
        '10000000',
      ],
      { cwd: ROOT, env: { ...baseEnv, MLFLOW_TRACKING_URI: uri }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    const isRank = (cmd: string) => cmd.includes('examples/polynomial/train.py') && cmd.startsWith(PY);
    let procs = new Map<number, string>();
    const deadline = Date.now() + 60_000;
    // Both ranks training (a loss line each) and both rank processes seen.
    while (Date.now() < deadline) {
      procs = jobProcesses(runDir, [child.pid!]);
      const training = [0, 1].every((r) => {
        const f = path.join(runDir, 'logs', `rank-${r}.out`);
        return fs.existsSync(f) && /epoch 0,/.test(fs.readFileSync(f, 'utf8'));
      });
      if (training && /ranks started 2\/2/.test(err) && [...procs.values()].filter(isRank).length === 2)
        break;
      await sleep(300);
    }
    expect([...procs.values()].filter(isRank)).toHaveLength(2);
    const supervisor = readJob(runDir).state.supervisor_pid;
    expect(procs.has(supervisor)).toBe(true);
    child.kill('SIGINT');
    const code = await exitWithin(exited, 60_000);
    // Every process of the job is gone: those seen while it ran, and any other (looked at before
    // a failed run's leftovers are killed).
    const stillAlive = [...procs.keys()].filter(alive).map((pid) => `${pid} ${procs.get(pid)}`);
    const others = [...jobProcesses(runDir).values()];
    killLeftovers(runDir, child);
    expect(code).toBe(5);
    expect(stillAlive).toEqual([]);
    expect(others).toEqual([]);
    expect(err).toContain('cancelling job');
    const job = readJob(runDir);
    expect(job.state.name).toBe('CANCELLED');
    expect(fs.readdirSync(path.join(runDir, 'rendezvous'))).toEqual([]);
    // Each rank recorded its end.
    for (const r of [0, 1]) {
      expect(
        JSON.parse(fs.readFileSync(path.join(runDir, 'logs', `rank-${r}.json`), 'utf8')).exit_code,
      ).toEqual(expect.any(Number));
    }
    expect(parentRunStatus(uri, experiment)).toEqual({ parents: 1, status: 'KILLED' });
  });

  test('Ctrl-C right after submitting, before any rank started, cancels the job and leaves nothing running', async () => {
    const runDir = path.join(tmp, 'ctrlc-early');
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
        '0.2',
        '--',
        PY,
        'examples/polynomial/train.py',
        '--epochs',
        '10000000',
      ],
      { cwd: ROOT, env: baseEnv, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    // Every process of the job seen from submission to the end, sampled every 20 ms.
    const seen = new Map<number, string>();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const [pid, cmd] of jobProcesses(runDir, [child.pid!])) seen.set(pid, cmd);
        await sleep(20);
      }
    })();
    let stateAtSigint = '';
    let supervisorPid: unknown;
    let rankFactsAtSigint = true;
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (d) => {
        err += d;
        if (!stateAtSigint && /Submitted job/.test(err)) {
          const job = readJob(runDir);
          stateAtSigint = job.state.name;
          supervisorPid = job.state.supervisor_pid;
          rankFactsAtSigint = fs.existsSync(path.join(runDir, 'logs', 'rank-0.json'));
          child.kill('SIGINT');
          resolve();
        }
      });
    });
    const code = await exitWithin(exited, 60_000);
    await sleep(1000); // a rank started late would show up by now
    sampling = false;
    await sampler;
    // Nothing of the job is left: not the supervisor, not a rank, not a bootstrap (looked at
    // before a failed run's leftovers are killed).
    const stillAlive = [...seen.keys()].filter(alive).map((pid) => `${pid} ${seen.get(pid)}`);
    const others = [...jobProcesses(runDir).values()];
    const supervisorAlive = typeof supervisorPid === 'number' && alive(supervisorPid);
    killLeftovers(runDir, child);

    // The window this test is about: the supervisor had not yet taken the job over (it records
    // RUNNING when it does), and no rank had started.
    expect(stateAtSigint).toBe('PENDING');
    expect(rankFactsAtSigint).toBe(false);
    expect(code).toBe(5);
    expect(err).toContain('cancelling job');
    expect(err).toMatch(/ended CANCELLED/);
    const job = readJob(runDir);
    expect(job.state.name).toBe('CANCELLED');
    // The submitter recorded the supervisor's pid at once (cancel needs it), and it is gone.
    expect(supervisorPid).toEqual(expect.any(Number));
    expect(supervisorAlive).toBe(false);
    expect(stillAlive).toEqual([]);
    expect(others).toEqual([]);
    // No rank got as far as its first epoch.
    const out0 = path.join(runDir, 'logs', 'rank-0.out');
    expect(fs.existsSync(out0) ? fs.readFileSync(out0, 'utf8') : '').not.toMatch(/epoch 0,/);
  });
});
