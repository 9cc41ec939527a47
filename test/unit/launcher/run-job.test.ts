// runJob with a fake executor: submit, follow to the end; a cancel asked before the job has an
// id waits for it; a refused cancel is retried while the job runs, and reported.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TrackLaunchError } from '../../../core/errors';
import { writeJobRecord } from '../../../core/rundir/job-record';
import type { JobRecord, JobStateName } from '../../../core';
import type { Executor } from '../../../launcher/executors/executor';
import type { SubmitPlan } from '../../../launcher/plan/plan';
import { cancelWithRetries } from '../../../launcher/run/run-job';
import { runJob, type RunJobEvent } from '../../../launcher/run/run-job';
import { jobRecord } from '../tracking/fixture';

const record = (name: JobStateName): JobRecord =>
  jobRecord({ name: 'poly', executor: 'local', job_id: 'local-1', state: { name } });

function fakeExecutor(states: JobStateName[], cancel: () => Promise<void> = async () => undefined) {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-runjob-'));
  fs.mkdirSync(path.join(runDir, 'logs'));
  writeJobRecord(runDir, record('PENDING'));
  const calls: string[] = [];
  let submitted!: () => void;
  const submitting = new Promise<void>((r) => (submitted = r));
  const executor: Executor = {
    name: 'local',
    submit: async () => {
      await submitting;
      calls.push('submit');
      return { jobId: 'local-1', runDir };
    },
    refresh: async () => record(states.length > 1 ? states.shift()! : states[0]),
    cancel: async () => {
      calls.push('cancel');
      return cancel();
    },
  };
  return { executor, calls, submitted, runDir };
}

const plan = { executor: 'local' } as SubmitPlan;

test('follows to the final state, reporting progress', async () => {
  const f = fakeExecutor(['PENDING', 'RUNNING', 'COMPLETED']);
  f.submitted();
  const seen: string[] = [];
  const r = await runJob(plan, {
    executor: f.executor,
    follow: true,
    pollMs: 1,
    onProgress: (p) => seen.push(p.record.state!.name),
  });
  expect(r).toMatchObject({ jobId: 'local-1', runDir: f.runDir, record: { state: { name: 'COMPLETED' } } });
  expect(seen).toEqual(['PENDING', 'RUNNING', 'COMPLETED']);
});

test('without follow: returns once submitted', async () => {
  const f = fakeExecutor(['RUNNING']);
  f.submitted();
  expect(await runJob(plan, { executor: f.executor })).toEqual({ jobId: 'local-1', runDir: f.runDir });
});

test('a cancel asked while submitting is done as soon as the job has an id', async () => {
  const f = fakeExecutor(['RUNNING', 'RUNNING', 'CANCELLED']);
  const stop = new AbortController();
  const events: RunJobEvent['kind'][] = [];
  const p = runJob(plan, {
    executor: f.executor,
    follow: true,
    pollMs: 1,
    cancel: stop.signal,
    onSubmitted: () => f.calls.push('submitted'),
    onEvent: (e) => events.push(e.kind),
  });
  stop.abort();
  f.submitted();
  const r = await p;
  expect(r.record?.state?.name).toBe('CANCELLED');
  expect(f.calls).toEqual(['submit', 'submitted', 'cancel']);
  expect(events).toEqual(['cancel-deferred', 'cancelling']);
});

test('a refused cancel is retried while the job runs, then reported', async () => {
  const refused = new TrackLaunchError('COMMAND_FAILED', 'scancel: Job is not yet started');
  const f = fakeExecutor(['RUNNING'], async () => Promise.reject(refused));
  await expect(
    cancelWithRetries(f.executor, f.runDir, { attempts: 3, sleep: async () => undefined }),
  ).rejects.toBe(refused);
  expect(f.calls).toEqual(['cancel', 'cancel', 'cancel']);
});

test('a refused cancel of a job that already ended is not retried', async () => {
  const f = fakeExecutor(['COMPLETED'], async () => Promise.reject(new Error('already done')));
  await expect(cancelWithRetries(f.executor, f.runDir, { sleep: async () => undefined })).rejects.toThrow(
    'already done',
  );
  expect(f.calls).toEqual(['cancel']);
});
