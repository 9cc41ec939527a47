// watchJob: a scheduler that cannot be asked for a while does not end the follow; a long
// outage, or any other error, does.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TrackLaunchError } from '../../../core/errors';
import { writeJobRecord } from '../../../core/rundir/job-record';
import type { JobRecord } from '../../../core/rundir/layout';
import { backoffMs, watchJob } from '../../../launcher/watch/watch-job';

function runDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-follow-'));
  fs.mkdirSync(path.join(dir, 'logs'));
  writeJobRecord(dir, record('RUNNING'));
  return dir;
}

function record(state: 'RUNNING' | 'COMPLETED'): JobRecord {
  return {
    version: 1,
    name: 'poly',
    executor: 'slurm',
    job_id: '42',
    submitted_at: 1764669000,
    plan_digest: 'x',
    spec: {
      nodes: 3,
      tasks_per_node: 1,
      gpus_per_node: 0,
      world_size: 3,
      launcher: 'srun',
      backend: 'gloo',
      modules: [],
      command: ['python3', 'train.py'],
      env_keys: [],
      params: {},
    },
    state: { name: state },
  } as JobRecord;
}

const down = () => new TrackLaunchError('COMMAND_FAILED', 'scontrol: Unable to contact slurm controller');
const noSleep = async () => undefined;

test('rides out a short outage: warns once, shows the last state seen, ends with the job', async () => {
  const dir = runDir();
  const answers: Array<JobRecord | Error> = [record('RUNNING'), down(), down(), down(), record('COMPLETED')];
  const warnings: string[] = [];
  const seen: string[] = [];
  const rec = await watchJob(
    dir,
    async () => {
      const a = answers.shift()!;
      if (a instanceof Error) throw a;
      return a;
    },
    {
      pollMs: 0,
      sleep: noSleep,
      onWarning: (m) => warnings.push(m),
      onProgress: (p) => seen.push(p.record.state!.name),
    },
  );
  expect(rec.state?.name).toBe('COMPLETED');
  expect(seen).toEqual(['RUNNING', 'RUNNING', 'RUNNING', 'RUNNING', 'COMPLETED']);
  expect(warnings).toEqual([
    'cannot ask the scheduler for the job state (scontrol: Unable to contact slurm controller); still trying',
  ]);
});

test('gives up after giveUpMs of failures, with the scheduler error', async () => {
  const dir = runDir();
  // the clock moves only when the watch sleeps, 10 ms a time (a loaded machine's timers cannot
  // change the count): failures at 0, 10, 20, 30 ms ride on, the one at 40 ms is past 30 ms
  let clock = 1_764_669_000_000;
  const now = jest.spyOn(Date, 'now').mockImplementation(() => clock);
  let calls = 0;
  try {
    const p = watchJob(
      dir,
      async () => {
        calls++;
        throw down();
      },
      {
        pollMs: 0,
        giveUpMs: 30,
        sleep: async () => {
          clock += 10;
        },
        onWarning: () => undefined,
        onProgress: () => undefined,
      },
    );
    await expect(p).rejects.toThrow('Unable to contact slurm controller');
  } finally {
    now.mockRestore();
  }
  expect(calls).toBe(5);
});

test('any other error ends the follow at once', async () => {
  const dir = runDir();
  let calls = 0;
  const p = watchJob(
    dir,
    async () => {
      calls++;
      throw new TrackLaunchError('NOT_FOUND', 'job.json is gone');
    },
    { pollMs: 0, sleep: noSleep, onWarning: () => undefined, onProgress: () => undefined },
  );
  await expect(p).rejects.toThrow('job.json is gone');
  expect(calls).toBe(1);
});

test('backs off while the scheduler is down, up to the cap; polls at pollMs again once it answers', async () => {
  expect([0, 1, 2, 3, 10].map((n) => backoffMs(2000, n, 30_000))).toEqual([2000, 4000, 8000, 16000, 30000]);
  const dir = runDir();
  const answers: Array<JobRecord | Error> = [down(), down(), record('RUNNING'), record('COMPLETED')];
  const waits: number[] = [];
  await watchJob(
    dir,
    async () => {
      const a = answers.shift()!;
      if (a instanceof Error) throw a;
      return a;
    },
    {
      pollMs: 100,
      maxBackoffMs: 300,
      sleep: async (ms) => void waits.push(ms),
      onWarning: () => undefined,
    },
  );
  expect(waits).toEqual([200, 300, 100]);
});

test('an abort ends the watch with the last record seen', async () => {
  const dir = runDir();
  const stop = new AbortController();
  let polls = 0;
  const rec = await watchJob(
    dir,
    async () => {
      if (++polls === 2) stop.abort();
      return record('RUNNING');
    },
    { pollMs: 60_000, signal: stop.signal, sleep: noSleep },
  );
  expect(rec.state?.name).toBe('RUNNING');
  expect(polls).toBe(2);
});
