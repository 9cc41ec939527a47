// The commands a user runs beside a job submitted without --follow: `ingest <job> --follow` logs
// the job live with a progress line, ends with the job's state and attaches the report;
// `logs <job> --rank 1 --follow` prints that rank's output byte-exact and ends with the job.
import * as fs from 'fs';
import * as path from 'path';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { readRunMetrics } from '../../../tracking-plugin/series';
import { cli, clusterEnv, jobIdOf, PYTHON, requireCluster, said, tmpDir, TRAIN } from '../launcher/cluster';
import { history, jobRuns, triples } from '../tracking/helpers';
import { mlflowUp, uniqueName } from '../tracking/server';

jest.setTimeout(300_000);
beforeAll(requireCluster);

test('ingest --follow and logs --follow beside a running job', async () => {
  const uri = mlflowUp();
  const experiment = uniqueName('ingest-follow');
  const runDir = path.join(tmpDir('ingest-follow'), 'run');
  const base = clusterEnv(); // one state dir: the job index that maps the job id to its run dir
  const env = { ...base, MLFLOW_TRACKING_URI: uri };
  const sub = await cli(
    [
      'submit',
      '-N',
      '3',
      '--name',
      'poly-ingest-follow',
      '--run-dir',
      runDir,
      '--',
      PYTHON,
      TRAIN,
      '--epochs',
      '1200',
      '--log-every',
      '120',
    ],
    { env: base }, // no tracking URI at submit: the job itself knows nothing of MLflow
  );
  expect({ code: sub.code, said: sub.code === 0 ? '' : said(sub) }).toEqual({ code: 0, said: '' });
  const jobId = jobIdOf(sub);

  // Both start while the job is pending or running, and both must end on their own when it ends.
  const [ingest, logs] = await Promise.all([
    cli(['ingest', jobId, '--follow', '--poll', '0.5', '--experiment', experiment], {
      env,
      timeoutMs: 240_000,
    }),
    cli(['logs', jobId, '--rank', '1', '--follow'], { env, timeoutMs: 240_000 }),
  ]);
  expect({ code: ingest.code, said: ingest.code === 0 ? '' : said(ingest) }).toEqual({ code: 0, said: '' });
  expect({ code: logs.code, said: logs.code === 0 ? '' : said(logs) }).toEqual({ code: 0, said: '' });

  // The progress line (stderr is not a TTY here: one line per change): state, ranks, points, lag.
  const progress = ingest.stderr.split('\n').filter((l) => /^job [A-Z]+ \| ranks /.test(l));
  expect(progress.length).toBeGreaterThan(1);
  expect(progress[progress.length - 1]).toMatch(
    /^job COMPLETED \| ranks 3\/3 \| (\d+)\/\1 points sent \| lag \d/,
  );

  // logs --follow printed rank 1's file byte for byte.
  expect(logs.stdoutBytes.equals(fs.readFileSync(path.join(runDir, 'logs', 'rank-1.out')))).toBe(true);
  expect(logs.stdout).toMatch(/epoch 1199, loss = \S+, rank 1\/3 \(tlnode2\)\./);

  const client = await MlflowClient.connect(uri);
  const exp = await client.getExperimentByName(experiment);
  const key = JSON.parse(fs.readFileSync(path.join(runDir, 'tracking', 'state.json'), 'utf8')).job_key;
  const runs = await jobRuns(client, exp!.experiment_id, key);
  expect(runs.all).toHaveLength(4);
  expect(runs.parent.info.status).toBe('FINISHED');
  const series = await readRunMetrics(runDir);
  for (const rank of [0, 1, 2]) {
    const fromLog = triples(series.find((s) => s.rank === rank)!.points, 'loss');
    expect(fromLog).toHaveLength(11); // steps 0, 120, ..., 1080 and the last epoch
    expect(await history(client, runs.ranks.get(rank)!.info.run_id, 'loss')).toEqual(fromLog);
  }
  // ingest renders the report at the end and attaches it to the parent run.
  const reports = (await client.listArtifacts(runs.parent.info.run_id, 'reports')).map((f) => f.path);
  expect(reports).toEqual(expect.arrayContaining(['reports/report.pdf', 'reports/loss.png']));
  expect(fs.existsSync(path.join(runDir, 'reports', 'report.pdf'))).toBe(true);
});
