// Values used again at a job's end, end to end (local executor, real MLflow server): every hostile
// --artifact pattern of the hand corpus that submit accepts, in one job with a regex: metrics format;
// the job completes and its runs end (none left RUNNING). A pattern the matcher cannot use is
// refused at submit, exit 2, naming --artifact, before any job or run exists.
import * as fs from 'fs';
import * as path from 'path';
import { SUBMIT_OPTIONS } from '../../../launcher/options/registry';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { canaryFiles, handCorpus } from '../../fixtures/hostile/corpus';
import { cli, clusterEnv, readText, said, tmpDir } from '../launcher/cluster';
import { jobRuns } from '../tracking/helpers';
import { mlflowUp, uniqueName } from '../tracking/server';

jest.setTimeout(300_000);

const acceptedArtifact = (p: string): boolean => {
  try {
    SUBMIT_OPTIONS.artifact.parse([p], 'artifact', { cwd: '/' });
    return true;
  } catch {
    return false;
  }
};

test('hostile --artifact patterns and a regex: format: the job completes and its runs end', async () => {
  const canary = tmpDir('canary');
  const patterns = handCorpus(canary).filter(acceptedArtifact);
  const dir = path.join(tmpDir('job-end'), 'run');
  const uri = mlflowUp();
  const experiment = uniqueName('job-end-values');
  const sub = await cli(
    [
      'submit',
      '--executor',
      'local',
      '-N',
      '1',
      '--run-dir',
      dir,
      '--experiment',
      experiment,
      '--metrics-format',
      'regex:step=(?<step>\\d+) loss=(?<loss>\\S+)',
      // `--artifact=V` for a V that starts with a dash (else read as a flag), `--artifact V` for the
      // rest: yargs strips the quotes around a quoted V in the first form.
      ...patterns.flatMap((p) => (p.startsWith('-') ? [`--artifact=${p}`] : ['--artifact', p])),
      '--follow',
      '--',
      'bash',
      '-c',
      'for i in 0 1 2; do echo "step=$i loss=0.$i"; done; echo x >out.txt',
    ],
    { env: clusterEnv({ MLFLOW_TRACKING_URI: uri }), timeoutMs: 240_000, cwd: tmpDir('submit-cwd') },
  );
  // 0, or 9 when a pattern's files were refused (an escape, a symlink): said, never silent.
  if (sub.code !== 0 && sub.code !== 9) throw new Error(said(sub));
  const client = await MlflowClient.connect(uri, {});
  const exp = await client.getExperimentByName(experiment);
  const jobKey = JSON.parse(readText(path.join(dir, 'tracking', 'state.json'))).job_key as string;
  const runs = await jobRuns(client, exp!.experiment_id, jobKey);
  const statuses = [runs.parent, ...runs.ranks.values()].map((r) => r.info.status);
  expect(statuses).toEqual(['FINISHED', 'FINISHED']);
  expect(patterns.length).toBeGreaterThan(100);
  expect(canaryFiles(canary)).toEqual([]); // no pattern ran as a command anywhere
});

test('a glob the matcher cannot use: refused at submit, exit 2, --artifact named, nothing run', async () => {
  const dir = path.join(tmpDir('job-end-refused'), 'run');
  const sub = await cli(
    ['submit', '--executor', 'local', '--run-dir', dir, '--artifact', '[z-a]*', '--follow', '--', 'true'],
    { env: clusterEnv({ MLFLOW_TRACKING_URI: mlflowUp() }), timeoutMs: 60_000 },
  );
  expect(sub.code).toBe(2);
  expect(sub.stderr).toContain('--artifact: "[z-a]*" is not valid; the glob part "[z-a]*" cannot be matched');
  expect(fs.existsSync(dir)).toBe(false);
});
