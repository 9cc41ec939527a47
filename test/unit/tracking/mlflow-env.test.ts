// submit --mlflow-env, the pure parts: the URI the ranks get (never with credentials), the run-dir
// file of run ids as written and as read back, the real rank bootstrap exporting each rank's own
// run from that file, and one job key per array task (their runs are made before any job id).
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { JobRecord } from '../../../core';
import { formatMlflowEnv, jobTrackingUri, parseMlflowEnv } from '../../../tracking-plugin/ingest/job-runs';
import { jobKey } from '../../../tracking-plugin/ingest/state';

const BOOTSTRAP = path.resolve(__dirname, '..', '..', '..', 'sbatch', 'rank-bootstrap.sh');
const RUN_ID = (r: number) => `${r}`.repeat(32).slice(0, 32).replace(/^./, 'a');
const ENV = {
  uri: 'http://10.77.77.1:5000/prefix',
  experimentId: '17',
  rankRunIds: { '0': RUN_ID(0), '1': RUN_ID(1), '10': RUN_ID(2), '2': RUN_ID(3) },
};

describe('jobTrackingUri', () => {
  test('an http(s) URI is given to the ranks as it is, without a trailing slash', () => {
    expect(jobTrackingUri(' http://mlflow.lan:5000/ ')).toBe('http://mlflow.lan:5000');
    expect(jobTrackingUri('https://MLflow.lan/prefix/')).toBe('https://mlflow.lan/prefix');
  });

  test('a URI with credentials is refused, naming the variables to use instead, never the password', () => {
    for (const uri of ['http://u:s3cret@mlflow.lan:5000', 'https://tok3n@mlflow.lan']) {
      const err = (() => {
        try {
          return jobTrackingUri(uri);
        } catch (e) {
          return e as { code: string; message: string; hint: string };
        }
      })();
      expect(err).toMatchObject({ code: 'INVALID_SPEC' });
      if (typeof err === 'string') throw new Error('accepted');
      expect(`${err.message} ${err.hint}`).not.toMatch(/s3cret|tok3n/);
      expect(err.hint).toMatch(
        /MLFLOW_TRACKING_USERNAME.*MLFLOW_TRACKING_PASSWORD.*MLFLOW_TRACKING_TOKEN.*--env/,
      );
    }
  });

  test('not an http(s) URL: refused', () => {
    expect(() => jobTrackingUri('file:///tmp/mlruns')).toThrow(/not an http\(s\) URL/);
    expect(() => jobTrackingUri('mlflow.lan:5000 x')).toThrow(/not/);
  });
});

describe('tracking/mlflow-env.tsv', () => {
  test('written in rank order, read back the same', () => {
    const text = formatMlflowEnv(ENV);
    expect(text.split('\n').filter((l) => !l.startsWith('#'))).toEqual([
      'uri\thttp://10.77.77.1:5000/prefix',
      'experiment\t17',
      `rank\t0\t${RUN_ID(0)}`,
      `rank\t1\t${RUN_ID(1)}`,
      `rank\t2\t${RUN_ID(3)}`,
      `rank\t10\t${RUN_ID(2)}`,
      '',
    ]);
    expect(parseMlflowEnv(text)).toEqual(ENV);
  });

  test('an id the bootstrap could not export safely is refused at write and at read', () => {
    expect(() => formatMlflowEnv({ ...ENV, rankRunIds: { '0': 'a b' } })).toThrow(/cannot export/);
    expect(() => formatMlflowEnv({ ...ENV, experimentId: '$(x)' })).toThrow(/cannot export/);
    expect(() => parseMlflowEnv('uri\thttp://h\nexperiment\t1\nrank\t0\t$(reboot)\n')).toThrow(/line 3/);
    expect(() => parseMlflowEnv('uri\thttp://h\n')).toThrow(/no experiment line/);
  });
});

describe('the rank bootstrap with --mlflow-env', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-mlflow-env-'));
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

  /** The real bootstrap (--launcher local) as rank `rank`, its command printing MLflow's variables. */
  function rankEnv(dir: string, rank: number, extra: string[] = []) {
    fs.mkdirSync(path.join(dir, 'rendezvous'), { recursive: true, mode: 0o700 });
    const r = spawnSync(
      'bash',
      [
        BOOTSTRAP,
        '--launcher',
        'local',
        '--run-dir',
        dir,
        '--rdzv-file',
        path.join(dir, 'rendezvous', 'local.r0.addr'),
        ...extra,
        '--',
        'bash',
        '-c',
        'env | grep ^MLFLOW_ | sort >"$1"',
        'rank',
        path.join(dir, `env-${rank}`),
      ],
      {
        encoding: 'utf8',
        timeout: 30_000,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          TRACK_LAUNCH_RANK: String(rank),
          TRACK_LAUNCH_WORLD_SIZE: '1',
          TRACK_LAUNCH_TASKS_PER_NODE: '1',
          TRACK_LAUNCH_JOB_ID: 'local',
          TRACK_LAUNCH_SAMPLE_INTERVAL: '0',
          MLFLOW_EXPERIMENT_NAME: 'another',
          MLFLOW_TRACKING_URI: 'http://elsewhere:1',
        },
      },
    );
    const file = path.join(dir, `env-${rank}`);
    return {
      code: r.status,
      stderr: r.stderr,
      env: fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '',
    };
  }

  test("each rank exports the file's URI, experiment and its own run; MLFLOW_EXPERIMENT_NAME goes", () => {
    const dir = path.join(base, 'job');
    fs.mkdirSync(path.join(dir, 'tracking'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(dir, 'tracking', 'mlflow-env.tsv'), formatMlflowEnv(ENV));
    for (const rank of [0, 1, 2, 10]) {
      const r = rankEnv(dir, rank, ['--mlflow-env']);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
      expect(r.env).toBe(
        [
          `MLFLOW_EXPERIMENT_ID=17`,
          `MLFLOW_RUN_ID=${ENV.rankRunIds[String(rank) as '0']}`,
          'MLFLOW_TRACKING_URI=http://10.77.77.1:5000/prefix',
          '',
        ].join('\n'),
      );
    }
  });

  test('without --mlflow-env nothing changes', () => {
    const r = rankEnv(path.join(base, 'job'), 1);
    expect(r.env).toBe('MLFLOW_EXPERIMENT_NAME=another\nMLFLOW_TRACKING_URI=http://elsewhere:1\n');
  });

  test('a rank the file has no run for, or no file, fails before the command runs, saying why', () => {
    const r = rankEnv(path.join(base, 'job'), 3, ['--mlflow-env']);
    expect(r.code).toBe(1);
    expect(r.env).toBe('');
    expect(r.stderr).toMatch(/mlflow-env\.tsv has no MLflow run for rank 3 \(--mlflow-env\)/);
    const none = rankEnv(path.join(base, 'none'), 0, ['--mlflow-env']);
    expect(none.code).toBe(1);
    expect(none.env).toBe('');
  });
});

test("an array's tasks have job keys of their own before the job has an id", () => {
  const top = {
    version: 1,
    executor: 'slurm',
    submitted_at: 1,
    name: 'sweep',
    plan_digest: 'd',
  } as JobRecord;
  const task = (t: number) => ({ ...top, array_task: { task_id: t } }) as JobRecord;
  expect(new Set([jobKey(task(0)), jobKey(task(1)), jobKey(top)]).size).toBe(3);
  expect(jobKey(task(1))).toBe(jobKey(task(1)));
});
