// MLflow 3's UI guesses an experiment's kind when its `mlflow.experimentKind` tag is missing, and guesses
// GenAI. Every experiment track-launch creates or uses gets the training kind, unless the user set one.
// Read back with the official Python client, not with the code under test.
import { execFileSync } from 'child_process';
import { promises as fs } from 'fs';
import * as path from 'path';
import { syncRunDir } from '../../../tracking-plugin';
import { endJob, jobRecord, makeRunDir, polyLog, writeFacts, writeJob } from '../../unit/tracking/fixture';
import { appendLines } from './helpers';
import { mlflowPython, mlflowUp, uniqueName } from './server';

jest.setTimeout(120_000);

const PY = `
import json, sys
from mlflow import MlflowClient
uri, op, name = sys.argv[1:4]
c = MlflowClient(uri)
if op == "create":
    c.create_experiment(name, tags=json.loads(sys.argv[4]))
else:
    e = c.get_experiment_by_name(name)
    print(json.dumps(e.tags if e else None))
`;
const py = (uri: string, ...args: string[]) =>
  execFileSync(mlflowPython(), ['-c', PY, uri, ...args], { encoding: 'utf8', timeout: 60_000 });
const kindOf = (uri: string, name: string): string | undefined =>
  (JSON.parse(py(uri, 'tags', name)) as Record<string, string> | null)?.['mlflow.experimentKind'];

async function syncJobInto(uri: string, experiment: string): Promise<void> {
  const dir = await makeRunDir();
  await writeJob(dir, jobRecord({ job_id: uniqueName('job') }, 1));
  await appendLines(dir, 0, polyLog(0), 1764669000);
  await writeFacts(dir, 0, 1);
  await endJob(dir, 'COMPLETED', 1764669100);
  const s = await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: uri }, experiment });
  expect(s.complete).toBe(true);
  await fs.rm(path.join(dir), { recursive: true, force: true });
}

test('a new experiment, and an existing one without a kind, are marked as model training', async () => {
  const uri = mlflowUp();
  const fresh = uniqueName('kind-new');
  await syncJobInto(uri, fresh);
  expect(kindOf(uri, fresh)).toBe('custom_model_development');

  const existing = uniqueName('kind-none');
  py(uri, 'create', existing, '{}');
  expect(kindOf(uri, existing)).toBeUndefined(); // the server itself sets none
  await syncJobInto(uri, existing);
  expect(kindOf(uri, existing)).toBe('custom_model_development');
});

test('a kind the user set is never overwritten', async () => {
  const uri = mlflowUp();
  const genai = uniqueName('kind-genai');
  py(uri, 'create', genai, JSON.stringify({ 'mlflow.experimentKind': 'genai_development' }));
  await syncJobInto(uri, genai);
  expect(kindOf(uri, genai)).toBe('genai_development');
});
