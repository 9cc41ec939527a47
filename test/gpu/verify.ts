// The GPU check's last part, here (test/gpu/README.md): unpack what on-gpu.sh sent back, ingest it into
// MLflow and render its report with the built CLI, then check each thing the GPU path must do
// (checks.ts). The same for the real GPU run (nccl) and the CPU rehearsal (gloo).
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { packageRoot } from '../../core';
import { Check, runChecks } from './checks';

const CLI = path.join(packageRoot(), 'bin', 'track-launch.js');

export interface Verified {
  runDir: string;
  checks: Check[];
}

/** The built CLI, with the tracking URI; its exit code and output. */
function cli(args: string[], uri: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, MLFLOW_TRACKING_URI: uri },
    encoding: 'utf8',
    timeout: 300_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}${r.error ? String(r.error) : ''}` };
}

/** `result`: gpu-check.tgz, or the folder holding it (the run tool's files_at); `into`: an empty or
 *  missing folder to unpack it in. */
export async function verify(result: string, into: string, uri: string): Promise<Verified> {
  const tgz = fs.statSync(result).isDirectory() ? findTarball(result) : result;
  fs.mkdirSync(into, { recursive: true, mode: 0o700 });
  if (fs.readdirSync(into).length) throw new Error(`${into} is not empty: give a new folder to unpack into`);
  const tar = spawnSync('tar', ['-xzf', tgz, '-C', into], { encoding: 'utf8' });
  if (tar.status !== 0) throw new Error(`tar -xzf ${tgz}: ${tar.stderr}`);
  const runDir = path.join(into, 'run');
  const ingest = cli(['ingest', runDir], uri);
  const report = cli(['report', runDir, '--json'], uri);
  const checks = await runChecks({ runDir, there: path.join(into, 'there'), uri, ingest, report });
  return { runDir, checks };
}

/** The one gpu-check.tgz in `dir` or below it (files_at keeps $OUT's layout). */
function findTarball(dir: string): string {
  const found = fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => path.basename(f) === 'gpu-check.tgz');
  if (found.length !== 1)
    throw new Error(`expected one gpu-check.tgz in ${dir}, found ${found.length}: give its path`);
  return path.join(dir, found[0]);
}

/** The checks as lines: status, name, what was seen. */
export const formatChecks = (checks: Check[]): string =>
  checks.map((c) => `${c.status.toUpperCase().padEnd(4)}  ${c.name}: ${c.detail}`).join('\n');
