// status's tracking lines (pure): where the tracker runs and how it fares, or that nobody tracks the job.
import { formatTracker } from '../../../cli/tracker-view';

const base = { placement: 'login' as const, host: 'login1', pid: 4242, heartbeatAgeS: 3 };

test('a live follower: where, alive, last send, pending, lag; what it could not deliver', () => {
  const now = Date.now() / 1000;
  const lines = formatTracker(
    {
      tracker: {
        ...base,
        alive: true,
        lastSentAt: now - 75,
        pointsPending: 12,
        lagMs: 2500,
        undelivered: { points: 2, params: 0, tags: 1, files: 0 },
      },
      untracked: false,
    },
    '123',
  );
  expect(lines).toEqual([
    '  tracking: follower on the login node pid 4242 on login1, running, last sent 1m15s ago, 12 points pending, 3s behind the logs',
    '  tracking: 2 points, 1 tag not delivered (its output says why)',
  ]);
});

test('a tracker on another host by its heartbeat; a dead one; nobody tracking, with the fix', () => {
  const job = { ...base, placement: 'job' as const, host: 'tlnode1' };
  expect(formatTracker({ tracker: { ...job, alive: 'unknown' }, untracked: false }, '7')).toEqual([
    '  tracking: tracker inside the allocation pid 4242 on tlnode1, heartbeat 3s ago',
  ]);
  expect(
    formatTracker({ tracker: { ...job, alive: false, heartbeatAgeS: 600 }, untracked: true }, '7'),
  ).toEqual([
    "  tracking: tracker inside the allocation pid 4242 on tlnode1, gone (its lock's heartbeat 10m00s old)",
    "  warning:  nobody is tracking this job's runs: run `track-launch ingest --follow 7` (or `track-launch ingest --all` from cron)",
  ]);
  expect(
    formatTracker({ tracker: null, untracked: false, problem: 'tracking/lock is a symlink' }, '7'),
  ).toEqual(['  tracking: cannot tell: tracking/lock is a symlink']);
  expect(formatTracker({ tracker: null, untracked: false }, '7')).toEqual([]);
});
