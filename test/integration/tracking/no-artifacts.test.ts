// A server without the artifact proxy: `track-launch sync` of a real run dir says so once, and
// carries on with the rest (every metric point, run status), exiting 0. Three such servers: a
// stand-in answering what MLflow 3 answers on /api/2.0/mlflow-artifacts/* when it runs without
// --serve-artifacts (503 {"detail": "Artifact serving is disabled..."}; a server restarted that way
// keeps mlflow-artifacts:/ URIs for its old experiments), a stand-in for an MLflow-compatible
// server that lacks the endpoint (404), and a real `mlflow server --no-serve-artifacts` (its runs
// keep artifacts in server-local paths, which the client cannot write to).
import { promises as fs } from 'fs';
import * as path from 'path';
import { readRunMetrics } from '../../../tracking-plugin';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { main } from '../../../cli/main';
import { makeRunDir } from '../../unit/tracking/fixture';
import { history, jobRuns, triples } from './helpers';
import { mlflowDown, mlflowUp, noArtifactsServer, standIn, uniqueName, type StandIn } from './server';

jest.setTimeout(300_000);

const FIXTURE = path.resolve(__dirname, '../../fixtures/runs/polynomial-3');
const ARTIFACTS = '/api/2.0/mlflow-artifacts/';
const MLFLOW3_DISABLED = {
  detail: 'Artifact serving is disabled. Run `mlflow server` with `--serve-artifacts` to enable.',
};

/** The real 3-rank run, as a new job (its own job id, so its runs are its own on the shared server). */
async function copyRun(): Promise<string> {
  const dir = await makeRunDir();
  const job = JSON.parse(await fs.readFile(path.join(FIXTURE, 'job.json'), 'utf8'));
  await fs.writeFile(path.join(dir, 'job.json'), JSON.stringify({ ...job, job_id: uniqueName('noart') }));
  for (const f of await fs.readdir(path.join(FIXTURE, 'logs')))
    await fs.copyFile(path.join(FIXTURE, 'logs', f), path.join(dir, 'logs', f));
  return dir;
}

/** The CLI in process: what it wrote and the exit status it set. */
async function cli(args: string[]): Promise<{ stderr: string; exitCode: number }> {
  let stderr = '';
  const w = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  const saved = process.exitCode;
  process.exitCode = undefined;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => ((stderr += s), true)) as typeof process.stderr.write;
  try {
    await main(args);
    return { stderr, exitCode: Number(process.exitCode ?? 0) };
  } finally {
    process.stdout.write = w;
    process.stderr.write = e;
    process.exitCode = saved;
  }
}

/** Sync the run through `uri`, then check it against the real server `real`, as the issue asks. */
async function syncAndCheck(uri: string, real: string, why: RegExp): Promise<string[]> {
  const dir = await copyRun();
  const experiment = uniqueName('noart');
  const { stderr, exitCode } = await cli(['sync', dir, '--tracking-uri', uri, '--experiment', experiment]);
  expect(exitCode).toBe(0); // the metrics are all in: missing artifacts are a warning, not a failure
  // one warning for the run's artifacts, with what happened and why; the report adds its own line
  const warnings = stderr.split('\n').filter((l) => /warning/.test(l));
  const runWarnings = warnings.filter((l) => /^warning: /.test(l));
  expect(runWarnings.length).toBe(1);
  expect(runWarnings[0]).toMatch(why);
  expect(runWarnings[0]).toMatch(
    /job\.json and later files were not uploaded; start the server with --serve-artifacts/,
  );

  const client = await MlflowClient.connect(real, {});
  const remote = (await fs.readdir(path.join(dir, 'tracking'))).filter((f) => f.startsWith('mlflow-'));
  expect(remote.length).toBe(1);
  const state = JSON.parse(await fs.readFile(path.join(dir, 'tracking', remote[0]), 'utf8'));
  const key = JSON.parse(await fs.readFile(path.join(dir, 'tracking', 'state.json'), 'utf8')).job_key;
  const runs = await jobRuns(client, state.experiment_id, key);
  expect(runs.all.length).toBe(4);
  expect(state.finished).toBe('FINISHED');
  expect(runs.parent.info.status).toBe('FINISHED');
  expect(Number(runs.parent.info.end_time)).toBe(1796206529247); // job.json's ended_at
  const series = await readRunMetrics(dir);
  let points = 0;
  for (const r of [0, 1, 2]) {
    const run = runs.ranks.get(r)!;
    const facts = JSON.parse(await fs.readFile(path.join(dir, 'logs', `rank-${r}.json`), 'utf8'));
    expect([run.info.status, Number(run.info.end_time)]).toEqual([
      'FINISHED',
      Math.round(facts.ended_at * 1000),
    ]);
    const keys = [...new Set(series[r].points.map((p) => p.key))];
    expect(keys).toEqual(['loss']);
    for (const k of keys) {
      const want = triples(series[r].points, k);
      expect(await history(client, run.info.run_id, k)).toEqual(want);
      points += want.length;
    }
    expect(await client.listArtifacts(run.info.run_id)).toEqual([]);
  }
  expect(points).toBe(100 + 100 + 100);
  expect((await history(client, runs.parent.info.run_id, 'loss/mean')).length).toBe(100);
  expect(await client.listArtifacts(runs.parent.info.run_id)).toEqual([]);
  return warnings;
}

describe('stand-ins in front of the real server', () => {
  let proxy: StandIn;
  let mode: 'mlflow-503' | 'missing-404' = 'mlflow-503';
  beforeAll(async () => {
    proxy = await standIn(mlflowUp(), {
      answer: (req, res) => {
        if (!req.url?.startsWith(ARTIFACTS)) return false;
        if (mode === 'mlflow-503') {
          res.writeHead(503, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(MLFLOW3_DISABLED));
        } else {
          res.writeHead(404, { 'Content-Type': 'text/html' });
          res.end('<h1>Not Found</h1>');
        }
        return true;
      },
    });
  });
  afterAll(() => proxy?.close());
  beforeEach(() => (proxy.counts.requests = []));

  test('MLflow without --serve-artifacts (503): said once, not retried, every point and status arrive', async () => {
    mode = 'mlflow-503';
    const warnings = await syncAndCheck(
      proxy.uri,
      mlflowUp(),
      /^warning: the MLflow server does not serve artifacts: PUT \/api\/2\.0\/mlflow-artifacts\/artifacts\/\S+\/job\.json answered 503: Artifact serving is disabled\./,
    );
    // one try for the run's files (then skipped), one for the report
    const puts = proxy.counts.requests.filter((r) => r.startsWith(`PUT ${ARTIFACTS}`));
    expect(puts.length).toBe(2);
    expect(puts[0]).toMatch(/\/job\.json$/);
    expect(puts[1]).toMatch(/\/reports\//);
    expect(warnings.filter((w) => /report/.test(w))).toEqual([
      expect.stringMatching(
        /^track-launch: warning: the report was not rendered or uploaded: .*--serve-artifacts/,
      ),
    ]);
  });

  test('an MLflow-compatible server without the endpoint (404): the same', async () => {
    mode = 'missing-404';
    await syncAndCheck(
      proxy.uri,
      mlflowUp(),
      /^warning: the server at http:\/\/127\.0\.0\.1:\d+ has no artifact proxy \(PUT \/api\/2\.0\/mlflow-artifacts\/artifacts answered 404\) \(job/,
    );
    expect(proxy.counts.requests.filter((r) => r.startsWith(`PUT ${ARTIFACTS}`)).length).toBe(2);
  });
});

test('a real `mlflow server --no-serve-artifacts`: said once, every point and status arrive', async () => {
  const own = await noArtifactsServer();
  try {
    await syncAndCheck(
      own.uri,
      own.uri,
      /^warning: run [0-9a-f]{32} keeps its artifacts at \/\S+\/mlruns\/\d+\/[0-9a-f]{32}\/artifacts, which track-launch cannot write through http:\/\/127\.0\.0\.1:\d+/,
    );
  } finally {
    mlflowDown(own.dir, true);
  }
});
