// Runs whose artifact store track-launch cannot write to: `track-launch sync` of a real run dir says
// why once, naming the first files not stored, delivers everything else (every metric point, run
// status), counts each file as not delivered and exits 9. Stand-ins in front of the real server: one
// answering what MLflow 3 answers on /api/2.0/mlflow-artifacts/* when it runs without
// --serve-artifacts (503 {"detail": "Artifact serving is disabled..."}; a server restarted that way
// keeps mlflow-artifacts:/ URIs for its old experiments), one for an MLflow-compatible server that
// lacks the endpoint (404), and two that give runs an artifact_uri of another store (s3://) or of a
// directory this machine does not have. And a report that is rendered but only partly uploaded.
import { existsSync, promises as fs } from 'fs';
import * as path from 'path';
import { readRunMetrics } from '../../../tracking-plugin';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { cliInProcess, copyRun, history, jobRuns, triples } from './helpers';
import { mlflowUp, standIn, uniqueName, type StandIn } from './server';

jest.setTimeout(300_000);

const ARTIFACTS = '/api/2.0/mlflow-artifacts/';
const MLFLOW3_DISABLED = {
  detail: 'Artifact serving is disabled. Run `mlflow server` with `--serve-artifacts` to enable.',
};

/** Files the fixture's job gives its runs: job.json, and each rank's .out and .err. */
const FILES = 1 + 3 * 2;

/** Sync the run through `uri`, then check it against the real server `real`: everything but the
 *  files delivered, the files counted, exit 9. The warnings, and the run's artifact_uri. */
async function syncAndCheck(uri: string, real: string, why: RegExp): Promise<string[]> {
  const dir = await copyRun('noart');
  const experiment = uniqueName('noart');
  const { stderr, exitCode } = await cliInProcess([
    'sync',
    dir,
    '--tracking-uri',
    uri,
    '--experiment',
    experiment,
  ]);
  expect(exitCode).toBe(9);
  // one warning for the run's artifacts, with why and the first files; one with the count
  const warnings = stderr.split('\n').filter((l) => /warning: /.test(l));
  const runWarnings = warnings.filter((l) => /^warning: /.test(l));
  expect(runWarnings.length).toBe(2);
  expect(runWarnings[0]).toMatch(why);
  expect(runWarnings[0]).toMatch(
    new RegExp(
      `\\(not stored: job\\.json, logs/rank-\\d\\.(out|err), logs/rank-\\d\\.(out|err) and ${FILES - 3} more; .*--serve-artifacts`,
    ),
  );
  expect(runWarnings[1]).toMatch(new RegExp(`^warning: ${FILES} files not delivered: ${FILES} files: `));
  // the report's files, when it was rendered but not uploaded, count as not delivered too
  const rendered = (await fs.readdir(path.join(dir, 'reports'))).filter((f) => /\.(pdf|png|html)$/.test(f));
  const reportLost = warnings.some((w) => /the report was rendered .* but not uploaded/.test(w))
    ? rendered.length
    : 0;
  expect(stderr).toMatch(new RegExp(`track-launch: ${FILES + reportLost} files not delivered`));

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

/** The report's warning: rendered, and not uploaded. */
const REPORT_NOT_UPLOADED =
  /^track-launch: warning: the report was rendered \(\S+\.pdf.*\) but not uploaded to the parent MLflow run: .*--serve-artifacts/;

describe('stand-ins in front of the real server', () => {
  let proxy: StandIn;
  type Mode = 'mlflow-503' | 'missing-404' | 's3' | 'unreachable' | 'reports-partly';
  let mode: Mode = 'mlflow-503';
  const gone = `/nonexistent-${uniqueName('store')}`;
  let reportPuts = 0;
  const real = mlflowUp();

  /** runs/get answered by the real server, with the run's artifact_uri moved to another store. */
  function moveStore(req: import('http').IncomingMessage, res: import('http').ServerResponse): void {
    void fetch(`${real}${req.url}`).then(async (r) => {
      const body = (await r.json()) as { run?: { info: { artifact_uri?: string } } };
      const info = body.run?.info;
      if (info?.artifact_uri) {
        const tail = info.artifact_uri.replace(/^mlflow-artifacts:\/*/, '');
        info.artifact_uri = mode === 's3' ? `s3://tl-test-bucket/${tail}` : `file://${gone}/mlruns/${tail}`;
      }
      res.writeHead(r.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  }

  beforeAll(async () => {
    proxy = await standIn(real, {
      answer: (req, res) => {
        if ((mode === 's3' || mode === 'unreachable') && req.url?.startsWith('/api/2.0/mlflow/runs/get')) {
          moveStore(req, res);
          return true;
        }
        if (!req.url?.startsWith(ARTIFACTS)) return false;
        if (mode === 'reports-partly') {
          // the first report file goes through, the next one is refused
          if (!/\/reports\//.test(req.url) || reportPuts++ === 0) return false;
          res.writeHead(400, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ error_code: 'INVALID_PARAMETER_VALUE', message: 'refused (test)' }));
        } else if (mode === 'mlflow-503') {
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
      real,
      /^warning: the MLflow server does not serve artifacts: PUT \/api\/2\.0\/mlflow-artifacts\/artifacts\/\S+\/job\.json answered 503: Artifact serving is disabled\./,
    );
    // one try for the run's files (then skipped), one for the report
    const puts = proxy.counts.requests.filter((r) => r.startsWith(`PUT ${ARTIFACTS}`));
    expect(puts.length).toBe(2);
    expect(puts[0]).toMatch(/\/job\.json$/);
    expect(puts[1]).toMatch(/\/reports\//);
    expect(warnings.filter((w) => /report/.test(w))).toEqual([expect.stringMatching(REPORT_NOT_UPLOADED)]);
  });

  test('an MLflow-compatible server without the endpoint (404): the same', async () => {
    mode = 'missing-404';
    await syncAndCheck(
      proxy.uri,
      real,
      /^warning: the server at http:\/\/127\.0\.0\.1:\d+ has no artifact proxy \(PUT \/api\/2\.0\/mlflow-artifacts\/artifacts answered 404\) \(not stored: job/,
    );
    expect(proxy.counts.requests.filter((r) => r.startsWith(`PUT ${ARTIFACTS}`)).length).toBe(2);
  });

  test('runs keeping their artifacts in s3://: the scheme and the fix said once, nothing tried', async () => {
    mode = 's3';
    const warnings = await syncAndCheck(
      proxy.uri,
      real,
      /^warning: run [0-9a-f]{32} keeps its artifacts at s3:\/\/tl-test-bucket\/\S+: track-launch writes s3: stores only through the server's artifact proxy/,
    );
    expect(proxy.counts.requests.filter((r) => r.startsWith('PUT ')).length).toBe(0);
    expect(warnings.filter((w) => /report/.test(w))).toEqual([expect.stringMatching(REPORT_NOT_UPLOADED)]);
  });

  test('runs keeping their artifacts in a directory this machine does not have: said, nothing created', async () => {
    mode = 'unreachable';
    await syncAndCheck(
      proxy.uri,
      real,
      new RegExp(
        `^warning: run [0-9a-f]{32} keeps its artifacts at file://${gone}/mlruns/\\S+, but ${gone}/mlruns/\\S+ is not reachable from this machine: ${gone}/mlruns does not exist here`,
      ),
    );
    expect(existsSync(gone)).toBe(false);
  });

  test('a report rendered but only partly uploaded says which files went and which did not', async () => {
    mode = 'reports-partly';
    reportPuts = 0;
    const dir = await copyRun('noart');
    const experiment = uniqueName('noart');
    const { stderr, exitCode } = await cliInProcess([
      'sync',
      dir,
      '--tracking-uri',
      proxy.uri,
      '--experiment',
      experiment,
    ]);
    const pdfs = (await fs.readdir(path.join(dir, 'reports'))).filter((f) => /\.(pdf|png)$/.test(f));
    expect(pdfs.length).toBeGreaterThan(1);
    const lines = stderr.split('\n').filter((l) => /warning: /.test(l));
    expect(lines).toEqual([
      expect.stringMatching(
        /^track-launch: warning: the report was rendered \(.+\) but only partly uploaded to the parent MLflow run \(\S+ uploaded; .+ not\): MLflow answered 400 INVALID_PARAMETER_VALUE/,
      ),
    ]);
    // the run's files and points are all in; the report files not uploaded are not delivered
    const rendered = (await fs.readdir(path.join(dir, 'reports'))).filter((f) => /\.(pdf|png|html)$/.test(f));
    expect(stderr).toMatch(new RegExp(`track-launch: ${rendered.length - 1} files? not delivered`));
    expect(stderr).toContain(`report files not uploaded stay in ${path.join(dir, 'reports')}`);
    expect(exitCode).toBe(9);
    // the command the hint names uploads them, once the server takes them
    const hinted = /report files not uploaded stay in \S+: `(track-launch sync [^`]+)` uploads them/.exec(
      stderr,
    );
    expect(hinted?.[1]).toBe(`track-launch sync ${dir}`);
    const again = await cliInProcess(['sync', dir, '--tracking-uri', real, '--experiment', experiment]);
    expect({ code: again.exitCode, stderr: again.exitCode === 0 ? '' : again.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
    const client = await MlflowClient.connect(real, {});
    const exp = await client.getExperimentByName(experiment);
    const key = JSON.parse(await fs.readFile(path.join(dir, 'tracking', 'state.json'), 'utf8')).job_key;
    const runs = await jobRuns(client, exp!.experiment_id, key);
    const attached = await client.listArtifacts(runs.parent.info.run_id, 'reports');
    const uploaded = attached.map((f) => path.basename(f.path)).sort();
    const now = (await fs.readdir(path.join(dir, 'reports')))
      .filter((f) => /\.(pdf|png|html)$/.test(f))
      .sort();
    expect(uploaded).toEqual(now);
  });
});
