// submit --follow whose live ingest fails: the job completed, but nothing reached MLflow, so the
// command fails (exit 6) saying to finish with `ingest`; the report waits for the ingest that runs
// to its end (the one rule for reports).
import * as fs from 'fs';
import * as path from 'path';
import { cli, clusterEnv, said, tmpDir } from '../launcher/cluster';

jest.setTimeout(180_000);

test('submit --follow: a failed live ingest fails the command and leaves the report to ingest', async () => {
  const dir = path.join(tmpDir('follow-fail'), 'run');
  const sub = await cli(
    ['submit', '--executor', 'local', '-N', '1', '--run-dir', dir, '--follow', '--', 'true'],
    {
      env: clusterEnv({ MLFLOW_TRACKING_URI: 'ftp://nowhere' }),
      timeoutMs: 120_000,
    },
  );
  expect({ code: sub.code, said: sub.code === 6 ? '' : said(sub) }).toEqual({ code: 6, said: '' });
  expect(sub.stderr).toMatch(
    /warning: live tracking stopped: MLFLOW_TRACKING_URI: "ftp:\/\/nowhere" is not valid/,
  );
  expect(sub.stderr).toContain(`run \`track-launch ingest ${dir}\` to finish it`);
  expect(sub.stderr).toMatch(
    /track-launch: job \S+ completed, but its live tracking stopped: MLFLOW_TRACKING_URI/,
  );
  expect(fs.existsSync(path.join(dir, 'reports'))).toBe(false);
  const ing = await cli(['ingest', dir], { env: clusterEnv({ MLFLOW_TRACKING_URI: '' }) });
  expect({ code: ing.code, said: ing.code === 0 ? '' : said(ing) }).toEqual({ code: 0, said: '' });
  expect(fs.existsSync(path.join(dir, 'reports', 'report.pdf'))).toBe(true);
});
