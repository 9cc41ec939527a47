// Each MLflow server's pace, learned by the syncs to it (tracking-plugin/ingest/pace.ts): two
// stand-ins in front of the real test server shape its log-batch answers, one as a server that does
// one request at a time (sqlite's one worker), one as a server with four workers; each takes 40 ms
// per log-batch. After the probes, a sync keeps 1 request in flight to the first and 4 to the
// second, counted at the stand-in, and the record in the state directory says why.
import * as fs from 'fs';
import * as path from 'path';
import { syncRunDir, type Summary } from '../../../tracking-plugin';
import { HIGH, LOW, PROBES } from '../../../tracking-plugin/ingest/pace';
import { paceFile } from '../../../tracking-plugin/ingest/pace-store';
import { appendLines, jobRecord, makeRunDir, polyLine, writeJob } from '../../unit/tracking/fixture';
import { mlflowUp, standIn, uniqueName } from './server';

jest.setTimeout(300_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A run dir of 2 ranks x 4,000 loss lines: about 320 KB of spool, 8 requests of points. */
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
  const seen = { inFlight: 0, peak: 0 };
  const proxy = await standIn(mlflowUp(), {
    hold: async (req, body) => {
      // requests of points only: the runs' tags go out beside them, outside the limit
      if (!(req.url ?? '').includes('/runs/log-batch') || !body.includes('"metrics":[{'))
        return { done: () => {} };
      seen.inFlight++;
      seen.peak = Math.max(seen.peak, seen.inFlight);
      if (busy >= workers) await new Promise<void>((r) => waiting.push(r));
      busy++;
      await sleep(40);
      return {
        done: () => {
          busy--;
          seen.inFlight--;
          waiting.shift()?.();
        },
      };
    },
  });
  return { proxy, seen };
}

const stateFile = (uri: string) => path.join(process.env.XDG_STATE_HOME!, 'track-launch', paceFile(uri));

for (const [name, workers, expected] of [
  ['one request at a time', 1, LOW],
  ['four workers', 4, HIGH],
] as const) {
  test(`a server doing ${name}: probed ${PROBES} times, then ${expected} request(s) of points in flight`, async () => {
    const { proxy, seen } = await shapedServer(workers);
    try {
      const experiment = uniqueName('pace');
      const ingest = async (): Promise<Summary> => {
        const s = await syncRunDir(await runDir(), { env: { MLFLOW_TRACKING_URI: proxy.uri }, experiment });
        expect(s.pending).toBe(0);
        expect(s.lastError).toBeUndefined();
        return s;
      };
      for (let i = 0; i < PROBES; i++) expect((await ingest()).pace).toMatch(/^probing the server/);
      const record = JSON.parse(fs.readFileSync(stateFile(proxy.uri), 'utf8'));
      expect(record.samples).toHaveLength(PROBES);
      expect(record.syncs).toBe(PROBES);
      expect(fs.statSync(stateFile(proxy.uri)).mode & 0o777).toBe(0o600);
      seen.peak = 0;
      const s = await ingest();
      expect(s.pace).toMatch(new RegExp(`^${expected} request\\(s\\) in flight`));
      expect(seen.peak).toBe(expected);
    } finally {
      await proxy.close();
    }
  });
}
