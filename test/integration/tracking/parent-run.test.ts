// The runs, made before any point is sent: the parent first (the rank runs' tags name it).
// 1. The experiment, the parent and the rank runs need nothing the spool stage reads, so an ingest
//    creates them while the spool stage still reads the logs. Seen without a clock: a rank's last
//    line waits for its time in .out.ts (the spool stage holds it up to the grace time), and that
//    time is written only when the last rank run's runs/create reaches the server. Created beside
//    the spool stage, the line gets that time at once; created after it, the line would wait out
//    the grace and take the fallback time.
// 2. A create whose answer was lost made the run anyway: the next cycle finds it by its job-key
//    tag, and the cycle that lost it does not ask again (that would make a second run).
import * as fs from 'fs';
import * as path from 'path';
import * as http from 'http';
import { syncRunDir } from '../../../tracking-plugin';
import { Ingester } from '../../../tracking-plugin/ingest/ingester';
import { jobKey } from '../../../tracking-plugin/ingest/state';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { appendLines, jobRecord, makeRunDir, polyLine, writeJob } from '../../unit/tracking/fixture';
import { history, jobRuns } from './helpers';
import { mlflowUp, standIn, uniqueName } from './server';

jest.setTimeout(120_000);

test('the experiment, the parent and the rank runs are created while the spool stage waits for a line time', async () => {
  const dir = await makeRunDir();
  await writeJob(dir, jobRecord({ job_id: uniqueName('job') }, 2));
  const t0 = 1764669010;
  for (const r of [0, 1]) await appendLines(dir, r, [polyLine(0, r, 2), polyLine(1, r, 2)], t0);
  await appendLines(dir, 1, [polyLine(2, 1, 2)], t0 + 2, { ts: false }); // its time comes later
  const lateTime = `${t0 + 7}.654000`; // unlike any time the fixture writes, and the log's mtime

  const seen: string[] = [];
  const proxy = await standIn(mlflowUp(), {
    answer: (req) => {
      const what = `${req.method} ${(req.url ?? '').replace(/\?.*/, '').replace(/.*\/mlflow\//, '')}`;
      // the third create: the parent's and both ranks' have reached the server
      if (what === 'POST runs/create' && seen.filter((x) => x === what).length === 2)
        fs.appendFileSync(path.join(dir, 'logs', 'rank-1.out.ts'), `${lateTime}\n`);
      seen.push(what);
      return false; // forwarded to MLflow
    },
  });
  try {
    const started = Date.now();
    const s = await syncRunDir(dir, {
      env: { MLFLOW_TRACKING_URI: proxy.uri },
      experiment: uniqueName('beside'),
      graceMs: 30_000,
    });
    expect(s.pending).toBe(0);
    expect(s.lastError).toBeUndefined();
    // the first runs/create is the parent's: the rank runs wait for its id (their tags name it)
    expect(seen.slice(0, 5)).toEqual([
      'GET experiments/get-by-name',
      'POST experiments/create',
      'POST runs/create',
      'POST runs/create',
      'POST runs/create',
    ]);
    const client = await MlflowClient.connect(proxy.uri, {});
    const h = await history(client, s.rankRunIds['1'], 'loss');
    expect(h.map(([step, , ts]) => [step, ts])).toEqual([
      [0, t0 * 1000 + 123],
      [1, (t0 + 1) * 1000 + 123],
      [2, (t0 + 7) * 1000 + 654],
    ]);
    expect(Date.now() - started).toBeLessThan(30_000); // not the grace waited out
  } finally {
    await proxy.close();
  }
});

test.each([
  ['parent', 0],
  ['rank', 1],
])('a %s run create whose answer was lost is found by the next cycle, not made again', async (_, lost) => {
  const dir = await makeRunDir();
  const job = jobRecord({ job_id: uniqueName('job') }, 2);
  await writeJob(dir, job);
  for (const r of [0, 1]) await appendLines(dir, r, [polyLine(0, r, 2), polyLine(1, r, 2)], 1764669010);
  // the spool stage holds this line until its time comes, half a second after the lost answer: so the
  // cycle sends points only once the early create has failed (and must not create it again)
  await appendLines(dir, 1, [polyLine(2, 1, 2)], 1764669012, { ts: false });
  const release = () =>
    setTimeout(() => fs.appendFileSync(path.join(dir, 'logs', 'rank-1.out.ts'), '1764669012.500000\n'), 500);
  const target = new URL(mlflowUp());
  let creates = 0;
  const proxy = await standIn(target.href, {
    // that runs/create reaches MLflow (the run is made), but its answer becomes a 503
    answer: (req, res) => {
      if (req.method !== 'POST' || !/\/runs\/create$/.test(req.url ?? '') || creates++ !== lost) return false;
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const fwd = http.request(
          {
            host: target.hostname,
            port: target.port,
            method: 'POST',
            path: req.url,
            headers: { 'Content-Type': 'application/json', host: target.host },
          },
          (r) => {
            r.resume();
            r.on('end', () => res.writeHead(503).end('lost on the way', release));
          },
        );
        fwd.end(Buffer.concat(chunks));
      });
      return true;
    },
  });
  try {
    const experiment = uniqueName('lost');
    const ing = await Ingester.open(dir, {
      env: { MLFLOW_TRACKING_URI: proxy.uri },
      experiment,
      graceMs: 30_000,
    });
    const first = await ing.cycle(true);
    expect(first.lastError).toMatch(/503/);
    const second = await ing.cycle(true);
    expect(second.lastError).toBeUndefined();
    const s = await ing.close();
    expect(s.pending).toBe(0);
    const client = await MlflowClient.connect(proxy.uri, {});
    const runs = await jobRuns(client, s.experimentId!, jobKey(job));
    expect(runs.parent.info.run_id).toBe(s.parentRunId);
    expect(runs.all).toHaveLength(3); // the lost answer's run among them, and no second one
    expect(Object.fromEntries([...runs.ranks].map(([r, run]) => [String(r), run.info.run_id]))).toEqual(
      s.rankRunIds,
    );
  } finally {
    await proxy.close();
  }
});
