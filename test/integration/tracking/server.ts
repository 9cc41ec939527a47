// The real MLflow server for tracking tests, through test/mlflow/up (idempotent: reuses a
// running server). A test that stops the server uses its own state dir (ownServer).
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const HARNESS = path.resolve(__dirname, '../../mlflow');

export function mlflowUp(stateDir?: string): string {
  const out = execFileSync(path.join(HARNESS, 'up'), stateDir ? [stateDir] : [], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  return out.trim().split('\n').pop() as string;
}

export function mlflowDown(stateDir?: string, purge = false): void {
  execFileSync(path.join(HARNESS, 'down'), [...(purge ? ['--purge'] : []), ...(stateDir ? [stateDir] : [])], {
    timeout: 60_000,
  });
}

/** A server only this test uses (to stop and start it); remember to mlflowDown(dir, true). */
export function ownServer(): { dir: string; uri: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-mlflow-'));
  return { dir, uri: mlflowUp(dir) };
}

/** The Python that has mlflow (for reading runs back with the official client). */
export function mlflowPython(): string {
  for (const p of [path.resolve(__dirname, '../../../.venv/bin/python'), '/tmp/mlvenv/bin/python'])
    if (fs.existsSync(p)) return p;
  throw new Error('no Python with mlflow: .ci/run installs it into .venv');
}

export const uniqueName = (prefix: string) =>
  `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
