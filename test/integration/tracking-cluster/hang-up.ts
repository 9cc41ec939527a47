// Jobs tracked with nobody at a terminal: `submit` without --follow, its CLI killed with SIGHUP
// right after it started the detached follower; what the follower sent, counted at a proxy.
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { clusterEnv, PYTHON, tmpDir, waitFor } from '../launcher/cluster';
import { pointId, type CountingProxy } from '../tracking/counting-proxy';
import { jobRuns } from '../tracking/helpers';
import { uniqueName } from '../tracking/server';

/** Prints a jsonl metric line every `every` seconds, `steps` times. */
export const writer = (steps: number, every: number) => [
  PYTHON,
  '-c',
  `import json,time\nfor i in range(${steps}):\n    print(json.dumps({"track_launch": 1, "step": i, "metrics": {"loss": 1.0 / (i + 1)}}), flush=True)\n    time.sleep(${every})\n`,
];

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface Submitted {
  jobId: string;
  runDir: string;
  experiment: string;
  follower: number;
  env: NodeJS.ProcessEnv;
}

/** Every follower started, so that the test file can stop those a failed test left. */
export const followers: number[] = [];

/** `submit` without --follow, killed with SIGHUP as soon as it said where tracking runs. */
export async function submitAndHangUp(
  proxy: CountingProxy,
  tagName: string,
  nodes: number,
  extra: string[],
  cmd: string[],
): Promise<Submitted> {
  const runDir = path.join(tmpDir(tagName), 'run');
  const experiment = uniqueName(tagName);
  const env = clusterEnv({ MLFLOW_TRACKING_URI: proxy.uri });
  delete env.TRACK_LAUNCH_TRACK; // submit's own default: a follower, as a tracking URI is set
  const args = [
    '-N',
    String(nodes),
    '--experiment',
    experiment,
    '--run-dir',
    runDir,
    '--metrics-format',
    'jsonl',
  ];
  const child = spawn(process.execPath, ['bin/track-launch.js', 'submit', ...args, ...extra, '--', ...cmd], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const exited = new Promise<NodeJS.Signals | number | null>((r) => child.on('exit', (c, s) => r(s ?? c)));
  const said = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString('utf8');
      if (/tracking: follower pid \d+/.test(err)) resolve(err);
    });
    child.on('exit', () => reject(new Error(`submit ended before it started a follower:\n${err}`)));
  });
  child.kill('SIGHUP');
  await exited;
  const follower = Number(/tracking: follower pid (\d+) on /.exec(said)![1]);
  followers.push(follower);
  return { jobId: /Submitted job (\d+)/.exec(said)![1], runDir, experiment, follower, env };
}

/** SIGTERM to the followers still alive (those of a test that failed midway). */
export function stopFollowers(): void {
  for (const pid of followers.filter(alive)) process.kill(pid, 'SIGTERM');
}

/** The job's runs, read back once its follower ended. */
export async function endedRuns(proxy: CountingProxy, s: Submitted, withinMs: number) {
  await waitFor(`the follower of job ${s.jobId} to end`, () => !alive(s.follower), withinMs, 1000);
  const client = await MlflowClient.connect(proxy.uri);
  const exp = await client.getExperimentByName(s.experiment);
  const key = JSON.parse(fs.readFileSync(path.join(s.runDir, 'tracking', 'state.json'), 'utf8')).job_key;
  return jobRuns(client, exp!.experiment_id, key);
}

/** Every logged loss line of each rank reached MLflow exactly once (counted at the proxy). */
export function expectEachPointOnce(
  proxy: CountingProxy,
  runs: Awaited<ReturnType<typeof endedRuns>>,
  runDir: string,
  ranks: number,
): void {
  for (let r = 0; r < ranks; r++) {
    const runId = runs.ranks.get(r)!.info.run_id;
    const logged = fs
      .readFileSync(path.join(runDir, 'logs', `rank-${r}.out`), 'utf8')
      .split('\n')
      .filter((l) => /"loss"/.test(l))
      .map((l) => (JSON.parse(l) as { step: number }).step);
    const sent = proxy.sent.filter((p) => p.runId === runId && p.key === 'loss');
    expect({ rank: r, steps: sent.map((p) => p.step).sort((a, b) => a - b) }).toEqual({
      rank: r,
      steps: [...logged].sort((a, b) => a - b),
    });
    expect(new Set(sent.map(pointId)).size).toBe(sent.length);
  }
}
