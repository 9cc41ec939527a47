// Issue 19's "Done when" on the test cluster with the pinned MLflow: seed 004's polynomial script on 3
// Slurm nodes (gloo, CPU torch), followed by `submit --follow --artifact errors.pdf`. The seed's rank 0
// writes its own errors.pdf in the working directory (the submit directory); read back with the
// official Python client (mlflow.MlflowClient), not with the code under test: the experiment is marked
// as model training, the parent run's name holds the job id, errors.pdf is among the parent run's
// artifacts (outputs/errors.pdf) with the bytes the job wrote, and every rank run has its points.
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { pdfPages, pdfText } from '../../unit/reports/helpers/check-output';
import { cli, clusterEnv, jobIdOf, PYTHON, REPO, requireCluster, said, tmpDir } from '../launcher/cluster';
import { mlflowPython, mlflowUp, readBackWithPython, uniqueName } from './server';

jest.setTimeout(240_000);
beforeAll(requireCluster);

/** Seed 004's script: examples/polynomial/train.py, then rank 0's errors.pdf as the seed draws it. */
const SEED_004 = path.join(REPO, 'test', 'fixtures', 'scripts', 'seed004-errors-pdf.py');
const EPOCHS = 300;
const LOG_EVERY = 50;

/** The experiment, and the parent run's outputs/ as the official client lists and downloads them. */
const OUTPUTS_PY = `
import hashlib, json, os, sys, tempfile
import mlflow.artifacts
from mlflow import MlflowClient
uri, name, job_key = sys.argv[1:4]
mlflow.set_tracking_uri(uri)  # MLflow 2's client resolves mlflow-artifacts: URIs against the global URI
c = MlflowClient(uri)
e = c.get_experiment_by_name(name)
[parent] = c.search_runs([e.experiment_id], filter_string=f"tags.\`track_launch.job_key\` = '{job_key}' and tags.\`track_launch.role\` = 'parent'")
files = {}
with tempfile.TemporaryDirectory() as dst:
    for f in c.list_artifacts(parent.info.run_id, "outputs"):
        local = mlflow.artifacts.download_artifacts(run_id=parent.info.run_id, artifact_path=f.path, dst_path=dst, tracking_uri=uri)
        with open(local, "rb") as fh:
            data = fh.read()
        files[f.path] = {"size": f.file_size, "sha256": hashlib.sha256(data).hexdigest(), "read": len(data)}
print(json.dumps({"experiment_id": e.experiment_id, "tags": e.tags, "parent_run_id": parent.info.run_id, "outputs": files}))
`;

interface Outputs {
  experiment_id: string;
  tags: Record<string, string>;
  parent_run_id: string;
  outputs: Record<string, { size: number; sha256: string; read: number }>;
}

/** Every `epoch N, loss = X` line of a rank's log, as [step, value]: what its run must hold. */
function lossInLog(runDir: string, rank: number): [number, number][] {
  const log = fs.readFileSync(path.join(runDir, 'logs', `rank-${rank}.out`), 'utf8');
  return [...log.matchAll(/^epoch (\d+), loss = (\S+), rank /gm)].map((m) => [Number(m[1]), Number(m[2])]);
}

test('seed 004 with --artifact errors.pdf: training kind, "<name> #<job id>", errors.pdf attached, rank runs', async () => {
  const uri = mlflowUp();
  const experiment = uniqueName('seed004');
  const submitDir = tmpDir('seed004'); // the job's working directory, where the seed writes errors.pdf
  const runDir = path.join(tmpDir('seed004-run'), 'run');
  const env = clusterEnv({ MLFLOW_TRACKING_URI: uri });
  const r = await cli(
    [
      'submit',
      '-N',
      '3',
      '--name',
      'seed-004',
      '--experiment',
      experiment,
      '--run-dir',
      runDir,
      '--artifact',
      'errors.pdf',
      '--follow',
      '--',
      PYTHON,
      SEED_004,
      '--epochs',
      String(EPOCHS),
      '--log-every',
      String(LOG_EVERY),
    ],
    { env, cwd: submitDir, timeoutMs: 180_000 },
  );
  expect({ code: r.code, said: r.code === 0 ? '' : said(r) }).toEqual({ code: 0, said: '' });
  const jobId = jobIdOf(r);

  // What the job wrote: rank 0's errors.pdf in the submit directory, a real one-page PDF.
  const written = path.join(submitDir, 'errors.pdf');
  expect(fs.readFileSync(path.join(runDir, 'logs', 'rank-0.out'), 'utf8')).toContain(
    'plot evaluation result to errors.pdf',
  );
  expect(pdfPages(written)).toBe(1);
  expect(pdfText(written)).toContain('Error |f(x)-g(x)|');
  const bytes = fs.readFileSync(written);

  const jobKey = (
    JSON.parse(fs.readFileSync(path.join(runDir, 'tracking', 'state.json'), 'utf8')) as {
      job_key: string;
    }
  ).job_key;
  const read = JSON.parse(
    execFileSync(mlflowPython(), ['-c', OUTPUTS_PY, uri, experiment, jobKey], {
      encoding: 'utf8',
      timeout: 120_000,
    }),
  ) as Outputs;

  // (a) The experiment is marked as model training, so MLflow's UI treats it as such.
  expect(read.tags['mlflow.experimentKind']).toBe('custom_model_development');

  // (c) errors.pdf among the parent's artifacts, under outputs/, byte for byte what the job wrote.
  expect(Object.keys(read.outputs)).toEqual(['outputs/errors.pdf']);
  expect(read.outputs['outputs/errors.pdf']).toEqual({
    size: bytes.length,
    read: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  });

  // (b) The parent run's name holds the job id; (d) a run per rank, under the parent, with its points.
  const runs = readBackWithPython(uri, read.experiment_id, jobKey);
  expect(runs).toHaveLength(4);
  const parent = runs.find((x) => x.run_id === read.parent_run_id)!;
  expect(parent.run_name).toBe(`seed-004 #${jobId}`);
  expect(parent.status).toBe('FINISHED');
  expect(parent.tags['slurm.job_id']).toBe(jobId);
  const steps = [...Array(EPOCHS / LOG_EVERY).keys()].map((i) => i * LOG_EVERY).concat(EPOCHS - 1);
  for (const rank of [0, 1, 2]) {
    const run = runs.find((x) => x.tags['track_launch.role'] === 'rank' && x.tags.rank === String(rank));
    expect(run).toBeDefined();
    expect(run!.run_name).toBe(`rank-${rank}`);
    expect(run!.status).toBe('FINISHED');
    expect(run!.tags['mlflow.parentRunId']).toBe(parent.run_id);
    const points = (run!.history.loss ?? [])
      .map(([step, value]) => [step, value])
      .sort((a, b) => a[0] - b[0]);
    expect(points.map((p) => p[0])).toEqual(steps);
    expect(points).toEqual(lossInLog(runDir, rank));
  }
});
