// A real sampled job end to end: the local executor runs the polynomial example with the resource
// sampler every second, offline (no tracking URI); then sync to the real MLflow server puts each
// node's samples on the parent run as system metrics under the node's name, once (a second sync adds
// none; the CPU-only rank runs get none); and the report
// has the node's resource page. Needs `npm run build` (the CLI runs from dist/), as npm test does.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { renderReport } from '../../../reports/report';
import { syncRunDir } from '../../../tracking-plugin';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { history, jobRuns } from '../tracking/helpers';
import { mlflowUp, uniqueName } from '../tracking/server';
import { pdfText, pngInk, pngSize } from '../../unit/reports/helpers/check-output';

jest.setTimeout(240_000);
const ROOT = path.resolve(__dirname, '..', '..', '..');
const PY = process.env.TRACK_LAUNCH_TEST_PYTHON ?? '/usr/bin/python3';
const CPU = 'system/cpu_utilization_percentage';

test('sampled offline, synced twice, reported: one point per sample line on each rank run, and the page', async () => {
  const uri = mlflowUp();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-sampled-'));
  const dir = path.join(tmp, 'run');
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_STATE_HOME: path.join(tmp, 'state') };
  delete env.MLFLOW_TRACKING_URI; // offline: everything stays in the run dir
  const args = [
    'submit',
    '--executor',
    'local',
    '-N',
    '1',
    '--tasks-per-node',
    '2',
    '--sample-interval',
    '1',
  ];
  const r = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'bin', 'track-launch.js'),
      ...args,
      '--run-dir',
      dir,
      '--follow',
      '--',
      PY,
      'examples/polynomial/train.py',
    ],
    { cwd: ROOT, env, encoding: 'utf8', timeout: 200_000 },
  );
  expect([r.status, r.stderr.slice(-2000)]).toEqual([0, expect.any(String)]);
  const host = JSON.parse(fs.readFileSync(path.join(dir, 'logs', 'rank-0.json'), 'utf8')).host as string;
  const lines = fs
    .readFileSync(path.join(dir, 'logs', `node-${host}.resources.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l);
  expect(lines.length).toBeGreaterThanOrEqual(3); // a job of several seconds, a sample a second

  const experiment = uniqueName('sampled');
  const s = await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: uri }, experiment });
  expect(s).toMatchObject({ complete: true, status: 'FINISHED', pending: 0 });
  const client = await MlflowClient.connect(uri, {});
  const key = JSON.parse(fs.readFileSync(path.join(dir, 'tracking', 'state.json'), 'utf8')).job_key as string;
  const runs = await jobRuns(client, s.experimentId as string, key);
  const samples = lines.map((l) => JSON.parse(l));
  const nodeCpu = `system/${host}/cpu_utilization_percentage`;
  const cpu = await history(client, runs.parent.info.run_id, nodeCpu);
  expect(cpu).toEqual(samples.map((x, i) => [i, x.cpu_util, Math.round(x.t * 1000)]));
  for (const rank of [0, 1])
    expect(await history(client, runs.ranks.get(rank)!.info.run_id, CPU)).toEqual([]);
  const again = await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: uri }, experiment });
  expect(again.pointsSent).toBe(s.pointsSent);
  expect((await history(client, runs.parent.info.run_id, nodeCpu)).length).toBe(lines.length);

  const { files } = await renderReport(dir, { out: path.join(tmp, 'report') });
  const png = files.find((f) => path.basename(f) === `resources-${host}.png`);
  expect(png).toBeDefined();
  expect(pngSize(png!)).toEqual({ width: 2000, height: 1120 });
  const { ink, transparent } = await pngInk(png!);
  expect(transparent).toBe(false);
  expect(ink).toBeGreaterThan(0.01);
  const text = pdfText(files[0]);
  for (const t of [
    `Resources on ${host}`,
    'CPU busy (%)',
    'memory (MiB)',
    'seconds since job start',
    'job: RSS',
  ]) {
    expect(text).toContain(t);
  }
});
