// Requests in flight to the real test server, counted at a stand-in that holds every request
// 15 ms before forwarding it: 4 log-batches of points by default, else the number set by
// TRACK_LAUNCH_REQUESTS_IN_FLIGHT or the requestsInFlight option (which wins); a setting that is
// not a whole number above 0 is refused before anything is written.
import * as fs from 'fs';
import * as path from 'path';
import { syncRunDir, type IngestOptions } from '../../../tracking-plugin';
import { appendLines, jobRecord, makeRunDir, polyLine, writeJob } from '../../unit/tracking/fixture';
import { mlflowUp, standIn, uniqueName } from './server';

jest.setTimeout(120_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A run dir of 2 ranks x 4,000 loss lines: 8 requests of points for the ranks, more for the parent. */
async function runDir(): Promise<string> {
  const dir = await makeRunDir();
  await writeJob(dir, jobRecord({ job_id: uniqueName('in-flight') }, 2));
  for (const r of [0, 1])
    await appendLines(
      dir,
      r,
      Array.from({ length: 4000 }, (_, e) => polyLine(e, r, 2)),
      1764669000,
    );
  return dir;
}

let proxy: Awaited<ReturnType<typeof standIn>>;
const seen = { points: 0, peakPoints: 0 };
beforeAll(async () => {
  proxy = await standIn(mlflowUp(), {
    hold: async (req, body) => {
      const points = (req.url ?? '').includes('/runs/log-batch') && body.includes('"metrics":[{');
      if (points) seen.peakPoints = Math.max(seen.peakPoints, ++seen.points);
      await sleep(15);
      return { done: () => void (points && seen.points--) };
    },
  });
});
afterAll(() => proxy.close());

test.each<[string, NodeJS.ProcessEnv, Partial<IngestOptions>, number]>([
  ['by default', {}, {}, 4],
  ['set by TRACK_LAUNCH_REQUESTS_IN_FLIGHT', { TRACK_LAUNCH_REQUESTS_IN_FLIGHT: '2' }, {}, 2],
  [
    'set by the option, over the setting',
    { TRACK_LAUNCH_REQUESTS_IN_FLIGHT: '2' },
    { requestsInFlight: 1 },
    1,
  ],
])('log-batches of points in flight %s', async (_, env, opts, expected) => {
  seen.peakPoints = 0;
  const s = await syncRunDir(await runDir(), {
    env: { MLFLOW_TRACKING_URI: proxy.uri, ...env },
    experiment: uniqueName('in-flight'),
    ...opts,
  });
  expect(s.pending).toBe(0);
  expect(s.lastError).toBeUndefined();
  expect(s.warnings).toEqual([]);
  expect(seen.peakPoints).toBe(expected);
});

test.each([['0'], ['-1'], ['2.5'], ['four'], [' ']])(
  'TRACK_LAUNCH_REQUESTS_IN_FLIGHT=%j is refused before anything is written',
  async (value) => {
    const dir = await runDir();
    const sync = syncRunDir(dir, {
      env: { MLFLOW_TRACKING_URI: proxy.uri, TRACK_LAUNCH_REQUESTS_IN_FLIGHT: value },
    });
    await expect(sync).rejects.toThrow(
      `TRACK_LAUNCH_REQUESTS_IN_FLIGHT: ${JSON.stringify(value)} is not valid; use a whole number above 0, e.g. 4`,
    );
    expect(fs.existsSync(path.join(dir, 'tracking'))).toBe(false);
  },
);
