// Each MLflow server's pace (tracking-plugin/ingest/pace.ts, probe.ts) against the real test
// server, behind two stand-ins that hold every request 15 ms before forwarding it: one holds one
// request at a time (a server with one process), the other four side by side (four workers). The
// first sync to each probes it, then keeps 1 and 4 requests of points in flight, counted at the
// stand-in; the record is kept private in the state directory, and the next sync there does not
// probe again.
import * as fs from 'fs';
import * as path from 'path';
import { syncRunDir, type Summary } from '../../../tracking-plugin';
import { HIGH } from '../../../tracking-plugin/ingest/pace';
import { paceFile } from '../../../tracking-plugin/ingest/pace-store';
import { PHASE } from '../../../tracking-plugin/ingest/probe';
import { appendLines, jobRecord, makeRunDir, polyLine, writeJob } from '../../unit/tracking/fixture';
import { mlflowUp, standIn, uniqueName } from './server';

jest.setTimeout(120_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A run dir of 2 ranks x 4,000 loss lines: 8 requests of points for the ranks, more for the parent. */
async function runDir(): Promise<string> {
  const dir = await makeRunDir();
  await writeJob(dir, jobRecord({ job_id: uniqueName('pace') }, 2));
  for (const r of [0, 1])
    await appendLines(
      dir,
      r,
      Array.from({ length: 4000 }, (_, e) => polyLine(e, r, 2)),
      1764669000,
    );
  return dir;
}

async function shapedServer(workers: number) {
  let busy = 0;
  const waiting: Array<() => void> = [];
  const seen = { reads: 0, points: 0, peakPoints: 0 };
  const proxy = await standIn(mlflowUp(), {
    hold: async (req, body) => {
      const url = req.url ?? '';
      if (url.includes('/experiments/get?')) seen.reads++;
      const points = url.includes('/runs/log-batch') && body.includes('"metrics":[{');
      if (points) seen.peakPoints = Math.max(seen.peakPoints, ++seen.points);
      if (busy >= workers) await new Promise<void>((r) => waiting.push(r));
      busy++;
      await sleep(15);
      return {
        done: () => {
          busy--;
          if (points) seen.points--;
          waiting.shift()?.();
        },
      };
    },
  });
  return { proxy, seen };
}

const stateFile = (uri: string) => path.join(process.env.XDG_STATE_HOME!, 'track-launch', paceFile(uri));

for (const [name, workers, expected] of [
  ['one request at a time', 1, 1],
  ['four side by side', 4, HIGH],
] as const) {
  test(`a server answering ${name}: probed by the first sync, then ${expected} request(s) of points in flight`, async () => {
    const { proxy, seen } = await shapedServer(workers);
    try {
      const experiment = uniqueName('pace');
      const ingest = async (): Promise<Summary> => {
        const s = await syncRunDir(await runDir(), { env: { MLFLOW_TRACKING_URI: proxy.uri }, experiment });
        expect(s.pending).toBe(0);
        expect(s.lastError).toBeUndefined();
        expect(s.warnings).toEqual([]);
        return s;
      };
      const first = await ingest();
      expect(first.pace).toMatch(
        new RegExp(`^${expected} requests? in flight \\(${HIGH} in flight answered`),
      );
      expect(seen.reads).toBeGreaterThanOrEqual(HIGH + 4 * PHASE);
      expect(seen.peakPoints).toBe(expected);
      const record = JSON.parse(fs.readFileSync(stateFile(proxy.uri), 'utf8'));
      expect(record.limit).toBe(expected);
      expect(fs.statSync(stateFile(proxy.uri)).mode & 0o777).toBe(0o600);

      seen.reads = 0;
      seen.peakPoints = 0;
      const second = await ingest();
      expect(seen.reads).toBe(0);
      expect(second.pace).toBe(first.pace);
      expect(seen.peakPoints).toBe(expected);
    } finally {
      await proxy.close();
    }
  });
}
