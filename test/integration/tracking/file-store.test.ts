// A real `mlflow server --no-serve-artifacts --default-artifact-root <path>` (the HPC set-up: server
// and jobs on one shared file system): `track-launch sync` writes job.json, the rank logs and the
// report into each run's artifact directory as MLflow's client does, and exits 0. The official
// Python client (download_artifacts) gives them back byte for byte, the server lists them, and they
// carry the store root's group and mode. Once with the server's plain-path root, once with an
// experiment whose artifact location is a file:// URI.
import { execFileSync } from 'child_process';
import { promises as fs, statSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { cliInProcess, copyRun, jobRuns } from './helpers';
import { mlflowDown, mlflowPython, noArtifactsServer, uniqueName } from './server';

jest.setTimeout(600_000);

const GROUP = 65534; // nogroup: not the test's own, so a group taken from the store root is seen

/** The artifacts as MLflow's own client downloads them: path -> bytes (base64). */
/** The official client's download_artifacts of each [run id, path], base64, keyed "run id:path"
 *  (one Python process: importing mlflow takes seconds). */
function download(uri: string, wanted: [string, string][]): Record<string, string> {
  const script = `
import base64, json, os, sys, tempfile
from mlflow import MlflowClient
uri, wanted = sys.argv[1], json.loads(sys.argv[2])
c = MlflowClient(tracking_uri=uri)
out = {}
for run_id, p in wanted:
    with tempfile.TemporaryDirectory() as d:
        with open(c.download_artifacts(run_id, p, d), "rb") as f:
            out[run_id + ":" + p] = base64.b64encode(f.read()).decode()
print(json.dumps(out))
`;
  const out = execFileSync(mlflowPython(), ['-c', script, uri, JSON.stringify(wanted)], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return JSON.parse(out) as Record<string, string>;
}

const b64 = async (file: string) => (await fs.readFile(file)).toString('base64');

/** A store root an administrator set up for a group: setgid, group-writable. */
async function storeRoot(): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'tl-store-root-'));
  await fs.chown(root, -1, GROUP);
  await fs.chmod(root, 0o2775);
  return root;
}

let own: { dir: string; uri: string } | undefined;
let plainRoot = '';
beforeAll(async () => {
  plainRoot = await storeRoot();
  own = await noArtifactsServer(() => plainRoot);
});
afterAll(() => {
  if (own) mlflowDown(own.dir, true);
});

/** Sync the fixture into `experiment`; every file read back. `where`: the experiment's artifact
 *  directory, and how the runs' artifact_uri names it. */
async function syncAndReadBack(
  experiment: string,
  where: (experimentId: string) => { dir: string; uri: string },
): Promise<void> {
  const { uri } = own!;
  const dir = await copyRun('fstore');
  const { stderr, exitCode } = await cliInProcess([
    'sync',
    dir,
    '--tracking-uri',
    uri,
    '--experiment',
    experiment,
  ]);
  expect(stderr).not.toMatch(/warning/);
  expect(exitCode).toBe(0);

  const client = await MlflowClient.connect(uri, {});
  const sendState = (await fs.readdir(path.join(dir, 'tracking'))).find((f) => f.startsWith('mlflow-'))!;
  const state = JSON.parse(await fs.readFile(path.join(dir, 'tracking', sendState), 'utf8'));
  const key = JSON.parse(await fs.readFile(path.join(dir, 'tracking', 'state.json'), 'utf8')).job_key;
  const runs = await jobRuns(client, state.experiment_id, key);
  const parent = runs.parent.info;
  expect(parent.status).toBe('FINISHED');
  const exp = where(String(state.experiment_id));
  expect(parent.artifact_uri).toBe(`${exp.uri}/${parent.run_id}/artifacts`);

  const reports = (await fs.readdir(path.join(dir, 'reports'))).filter((f) => f.endsWith('.pdf'));
  expect(reports.length).toBeGreaterThan(0);
  const rankRuns = [0, 1, 2].map((r) => runs.ranks.get(r)!.info.run_id);
  const got = download(uri, [
    ...['job.json', ...reports.map((r) => `reports/${r}`)].map((p): [string, string] => [parent.run_id, p]),
    ...rankRuns.flatMap((id, r): [string, string][] => [
      [id, `logs/rank-${r}.out`],
      [id, `logs/rank-${r}.err`],
    ]),
  ]);
  expect(got[`${parent.run_id}:job.json`]).toBe(await b64(path.join(dir, 'job.json')));
  for (const r of reports)
    expect(got[`${parent.run_id}:reports/${r}`]).toBe(await b64(path.join(dir, 'reports', r)));
  for (const [r, id] of rankRuns.entries()) {
    expect(got[`${id}:logs/rank-${r}.out`]).toBe(await b64(path.join(dir, 'logs', `rank-${r}.out`)));
    expect(got[`${id}:logs/rank-${r}.err`]).toBe('');
    // the server itself lists them (it reads the same directory)
    const listed = (await client.listArtifacts(id, 'logs')).map((f) => [f.path, Number(f.file_size ?? 0)]);
    expect(listed.sort()).toEqual([
      [`logs/rank-${r}.err`, 0],
      [`logs/rank-${r}.out`, statSync(path.join(dir, 'logs', `rank-${r}.out`)).size],
    ]);
  }

  // the store root's group and mode, never more open; nothing world-writable
  const runArtifacts = path.join(exp.dir, parent.run_id, 'artifacts');
  for (const [p, mode] of [
    [runArtifacts, 0o2775],
    [path.join(runArtifacts, 'job.json'), 0o664],
    [path.join(runArtifacts, 'reports', reports[0]), 0o664],
  ] as const) {
    const st = statSync(p);
    expect([p, st.mode & 0o7777, st.gid]).toEqual([p, mode, GROUP]);
  }
}

test('--default-artifact-root a plain path: every file where MLflow reads it, byte for byte; exit 0', async () => {
  await syncAndReadBack(uniqueName('fs'), (id) => ({
    dir: path.join(plainRoot, id),
    uri: `${plainRoot}/${id}`,
  }));
});

test('an experiment whose artifact location is a file:// URI: the same', async () => {
  const root = await storeRoot();
  const name = uniqueName('fs-uri');
  const client = await MlflowClient.connect(own!.uri, {});
  await client.http.request('POST', '/api/2.0/mlflow/experiments/create', {
    body: { name, artifact_location: `file://${root}` },
  });
  await syncAndReadBack(name, () => ({ dir: root, uri: `file://${root}` }));
});
