// list, status's MLflow link and logs (labels, --tail, --json) on real jobs: one local job of 2
// ranks tracked live in the real MLflow server, one Slurm job on the test cluster.
import * as fs from 'fs';
import * as path from 'path';
import { jobIndexFile } from '../../../core/rundir/job-index';
import { findTrackedRuns } from '../../../tracking-plugin';
import { cli, clusterEnv, requireCluster, said, tmpDir } from '../launcher/cluster';
import { mlflowUp, uniqueName } from '../tracking/server';

jest.setTimeout(240_000);

// Each rank writes 3 stdout and 3 stderr lines, rank 1 offset by half a step, then one metric line.
// It waits 2 s first: a line written before the rank's log copier (python3) has started reading
// gets the copier's first read time, so lines written earlier share one time.
const SCRIPT = [
  'sleep "2.$((RANK * 25))"',
  'for i in 1 2 3; do echo "out $RANK $i"; echo "err $RANK $i" >&2; sleep 0.5; done',
  'echo "{\\"track_launch\\": 1, \\"step\\": 1, \\"metrics\\": {\\"loss\\": 0.5}}"',
].join('; ');

let uri: string;
let env: NodeJS.ProcessEnv;
let work: string;
let localDir: string;
let slurmDir: string;

beforeAll(async () => {
  requireCluster();
  uri = mlflowUp();
  env = clusterEnv({ MLFLOW_TRACKING_URI: uri, MLFLOW_EXPERIMENT_NAME: uniqueName('cli-jobs') });
  work = tmpDir('cli-jobs');
  localDir = path.join(work, 'local');
  slurmDir = path.join(work, 'slurm');
  const local = await cli(
    [
      'submit',
      '--executor',
      'local',
      '-N',
      '2',
      '--name',
      'w4-local',
      '--run-dir',
      localDir,
      '--follow',
      '--',
      'bash',
      '-c',
      SCRIPT,
    ],
    { env, timeoutMs: 120_000 },
  );
  if (local.code !== 0) throw new Error(`local job:\n${said(local)}`);
  const offline = { ...env, MLFLOW_TRACKING_URI: '' };
  const slurm = await cli(
    [
      'submit',
      '-N',
      '1',
      '--name',
      'w4-slurm',
      '--run-dir',
      slurmDir,
      '--follow',
      '--',
      'bash',
      '-c',
      'echo hello from slurm',
    ],
    { env: offline, timeoutMs: 180_000 },
  );
  if (slurm.code !== 0) throw new Error(`Slurm job:\n${said(slurm)}`);
});

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface ListJson {
  jobs: {
    job_id: string;
    name: string | null;
    state: string;
    executor: string;
    nodes: number | null;
    run_dir: string;
    mlflow_url: string | null;
  }[];
}

test('list: both jobs newest first, the MLflow link of the tracked one, filters, a removed run directory', async () => {
  // a third entry whose run directory is gone
  fs.appendFileSync(
    jobIndexFile(env),
    JSON.stringify({
      job_id: '999999',
      run_dir: path.join(work, 'gone'),
      executor: 'slurm',
      at: Date.now() / 1000,
    }) + '\n',
  );
  const r = await cli(['list', '--json'], { env });
  expect(r.code).toBe(0);
  const { jobs } = JSON.parse(r.stdout) as ListJson;
  expect(jobs.map((j) => [j.name, j.state, j.executor, j.nodes, j.run_dir])).toEqual([
    [null, 'GONE', 'slurm', null, path.join(work, 'gone')],
    ['w4-slurm', 'COMPLETED', 'slurm', 1, slurmDir],
    ['w4-local', 'COMPLETED', 'local', 2, localDir],
  ]);
  const parent = (await findTrackedRuns(localDir, uri))?.parentRunId;
  expect(parent).toBeTruthy();
  expect(jobs[2].mlflow_url).toMatch(
    new RegExp(`^${uri}/#/experiments/\\d+/runs/${parent}\\?workflowType=machine_learning$`),
  );
  expect(jobs[1].mlflow_url).toBeNull();

  const filtered = await cli(['list', '--json', '--state', 'completed', '--name', 'w4-l*'], { env });
  expect((JSON.parse(filtered.stdout) as ListJson).jobs.map((j) => j.name)).toEqual(['w4-local']);
  const limited = await cli(['list', '--json', '--limit', '2', '--refresh'], { env });
  expect((JSON.parse(limited.stdout) as ListJson).jobs.map((j) => j.name)).toEqual([null, 'w4-slurm']);

  const text = await cli(['list'], { env });
  expect(text.stdout.split('\n')[0]).toMatch(/^JOB\s+NAME\s+STATE\s+NODES\s+STARTED\s+RUN DIR\s+MLFLOW$/);
  expect(text.stdout).toMatch(/^999999\s+-\s+GONE \(run dir removed\)/m);
  expect((await cli(['list', '--state', 'finished'], { env })).code).toBe(2);
});

test('status shows the parent run URL, and MLflow has that run', async () => {
  const r = await cli(['status', localDir], { env });
  expect(r.code).toBe(0);
  const url = /^ {2}mlflow: {3}(\S+)$/m.exec(r.stdout)?.[1];
  expect(url).toMatch(
    new RegExp(`^${uri}/#/experiments/(\\d+)/runs/([0-9a-f]+)\\?workflowType=machine_learning$`),
  );
  const [, exp, run] = /experiments\/(\d+)\/runs\/([0-9a-f]+)/.exec(url as string) as RegExpExecArray;
  const got = (await (await fetch(`${uri}/api/2.0/mlflow/runs/get?run_id=${run}`)).json()) as {
    run: { info: { experiment_id: string; run_name: string } };
  };
  expect(got.run.info).toMatchObject({ experiment_id: exp, run_name: expect.stringMatching(/^w4-local/) });
  const json = JSON.parse((await cli(['status', localDir, '--json'], { env })).stdout) as {
    mlflow_url: string;
  };
  expect(json.mlflow_url).toBe(url);
  expect(JSON.parse((await cli(['status', slurmDir, '--json'], { env })).stdout).mlflow_url).toBeNull();
});

test('logs: every rank labelled in time order, --tail, --json, and --rank byte-exact', async () => {
  const all = await cli(['logs', localDir], { env });
  expect(all.code).toBe(0);
  const lines = all.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(14);
  for (const l of lines) expect(l).toMatch(/^\[rank [01]( stderr)?\] /);
  expect(lines).toContain('[rank 1] out 1 2');
  expect(lines).toContain('[rank 0 stderr] err 0 3');
  // the order of the line times the ranks recorded (logs/rank-R.out.ts, .err.ts), read here independently
  const expected = [0, 1]
    .flatMap((rank) =>
      (['out', 'err'] as const).flatMap((ext) => {
        const read = (f: string) =>
          fs
            .readFileSync(path.join(localDir, 'logs', f), 'utf8')
            .trimEnd()
            .split('\n');
        const times = read(`rank-${rank}.${ext}.ts`).map(Number);
        const label = ext === 'out' ? `[rank ${rank}]` : `[rank ${rank} stderr]`;
        return read(`rank-${rank}.${ext}`).map((text, i) => ({
          t: times[i],
          rank,
          ext,
          line: `${label} ${text}`,
        }));
      }),
    )
    .sort((x, y) => x.t - y.t || x.rank - y.rank || (x.ext === y.ext ? 0 : x.ext === 'out' ? -1 : 1));
  expect(lines).toEqual(expected.map((e) => e.line));
  const ranksInOrder = lines.map((l) => l[6]).join('');
  expect(ranksInOrder).not.toMatch(/^0+1+$|^1+0+$/); // interleaved, not one rank after the other

  const json = (await cli(['logs', localDir, '--json'], { env })).stdout.trimEnd().split('\n');
  const objs = json.map((l) => JSON.parse(l) as { rank: number; stream: string; time: number; text: string });
  expect(objs).toHaveLength(14);
  expect(objs.find((o) => o.text === 'out 0 1')).toEqual({
    rank: 0,
    stream: 'stdout',
    time: expect.any(Number),
    text: 'out 0 1',
  });
  expect(objs.find((o) => o.text === 'err 1 2')).toMatchObject({ rank: 1, stream: 'stderr' });
  const times = objs.map((o) => o.time);
  expect([...times].sort((a, b) => a - b)).toEqual(times);

  const tail = await cli(['logs', localDir, '--tail', '3'], { env });
  expect(tail.stdout.trimEnd().split('\n')).toEqual(lines.slice(-3));
  const followed = await cli(['logs', localDir, '--tail', '2', '--follow'], { env, timeoutMs: 30_000 });
  expect(followed.stdout.trimEnd().split('\n')).toEqual(lines.slice(-2)); // the job has ended: then stops

  const rank1 = await cli(['logs', localDir, '--rank', '1'], { env });
  expect(rank1.stdoutBytes.equals(fs.readFileSync(path.join(localDir, 'logs', 'rank-1.out')))).toBe(true);
  const rankTail = await cli(['logs', localDir, '--rank', '1', '--err', '--tail', '1'], { env });
  expect(rankTail.stdout).toBe('err 1 3\n');
});
