// submit --follow's exit: a job that completed while its tracking did not finish is an error, with
// what is missing; exit 0 only when everything reached MLflow (or the job was deliberately offline).
import type { Summary } from '../../../tracking-plugin';
import { jobFailed, type Tracked } from '../../../cli/workflows/follow-and-track';

const completed = { name: 'COMPLETED' as const, exit_code: 0, signal: 0 };

function summary(over: Partial<Summary>): Summary {
  return {
    runDir: '/runs/a',
    trackingUri: 'http://127.0.0.1:5000',
    rankRunIds: { 0: 'r0' },
    final: true,
    ranksSeen: 1,
    pointsSpooled: 100,
    pointsSent: 100,
    pending: 0,
    lagMs: 0,
    skipped: 0,
    online: true,
    complete: true,
    warnings: [],
    ...over,
  };
}
const job = (t: Partial<Tracked>): Tracked => ({ runDir: '/runs/a', jobId: '7', state: completed, ...t });

test('everything in MLflow, or offline on purpose: no error', () => {
  expect(jobFailed(job({ summary: summary({}) }))).toBeUndefined();
  const offline = summary({ trackingUri: undefined, pointsSent: undefined, complete: false });
  expect(jobFailed(job({ summary: offline }))).toBeUndefined();
});

test('points still pending when the job completed: exit 6, and how many', () => {
  const e = jobFailed(
    job({
      summary: summary({ pointsSent: 40, pending: 60, complete: false, lastError: 'connect ECONNREFUSED' }),
    }),
  );
  expect(e?.exitCode).toBe(6);
  expect(e?.message).toBe('60 of 100 points are not in MLflow yet: connect ECONNREFUSED');
  expect(e?.hint).toMatch(/run `track-launch sync \/runs\/a` again when the server answers$/);
  // stopped by Ctrl-C, the server answering: no word of waiting for it
  const stopped = jobFailed(job({ summary: summary({ pointsSent: 40, pending: 60, complete: false }) }));
  expect(stopped?.hint).toMatch(/run `track-launch sync \/runs\/a` again$/);
});

test('every point sent but the runs not ended: says so, not "0 of 100 points"', () => {
  const e = jobFailed(
    job({ summary: summary({ complete: false, lastError: 'MLflow answered 500 to runs/update' }) }),
  );
  expect(e?.exitCode).toBe(6);
  expect(e?.message).toBe(
    "all 100 points are in MLflow, but the job's runs were not brought up to date (ended, tagged): MLflow answered 500 to runs/update",
  );
});

test('live tracking that stopped before it summed up: an error naming the command that finishes it', () => {
  const e = jobFailed(job({ trackingStopped: 'the run directory is locked by pid 42' }));
  expect(e?.exitCode).toBe(6);
  expect(e?.message).toBe(
    'job 7 completed, but its live tracking stopped: the run directory is locked by pid 42',
  );
  expect(e?.hint).toBe('run `track-launch ingest /runs/a` to bring MLflow up to date');
});

test('an array: a task whose tracking did not finish fails the whole job; several are all named', () => {
  const ok = job({ summary: summary({}) });
  const pending = job({
    runDir: '/runs/a/task-1',
    summary: summary({ pending: 5, pointsSent: 95, complete: false }),
  });
  expect(jobFailed(job({ tasks: [ok, pending] }))?.message).toBe('5 of 100 points are not in MLflow yet');
  const lost = job({
    runDir: '/runs/a/task-2',
    summary: summary({
      undelivered: {
        points: 2,
        params: 0,
        tags: 0,
        files: 0,
        reasons: [{ reason: 'bad name', points: 2, params: 0, tags: 0, files: 0 }],
      },
    }),
  });
  const e = jobFailed(job({ tasks: [ok, lost, pending] }));
  // a tracking error among them: exit 6, though the first failing task's own is 9
  expect(e?.exitCode).toBe(6);
  expect(e?.message).toBe(
    '2 of 3 tasks did not reach MLflow in full:\n' +
      '  /runs/a/task-2: 2 points not delivered: 2 points: bad name\n' +
      '  /runs/a/task-1: 5 of 100 points are not in MLflow yet',
  );
});

test('report files not uploaded: the hint says where they stay', () => {
  const none = { points: 0, params: 0, tags: 0 };
  const e = jobFailed(
    job({
      summary: summary({
        undelivered: {
          ...none,
          files: 2,
          reasons: [{ reason: 'report files not uploaded: 500', ...none, files: 2 }],
        },
      }),
    }),
  );
  expect(e?.exitCode).toBe(9);
  expect(e?.hint).toMatch(
    /; report files not uploaded stay in \/runs\/a\/reports: `track-launch sync \/runs\/a` uploads them once the server takes them$/,
  );
  const names = jobFailed(
    job({
      summary: summary({
        undelivered: {
          ...none,
          files: 0,
          points: 1,
          reasons: [{ reason: 'bad name', ...none, files: 0, points: 1 }],
        },
      }),
    }),
  );
  expect(names?.hint).not.toMatch(/report files/);
});
