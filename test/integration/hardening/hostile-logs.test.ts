// Issue #6 item 10: rank logs with partial lines, binary garbage, invalid UTF-8, 1 MB lines, NaN
// and Inf, CRLF, and a truncated log. Ingestion (the built CLI, offline then sync to the real
// MLflow server) never crashes, counts what it skipped, and sends every metric line exactly once.
import * as fs from 'fs';
import * as path from 'path';
import { readRunMetrics } from '../../../tracking-plugin';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { endJob, jobRecord, writeFacts, writeJob } from '../../unit/tracking/fixture';
import { cli, clusterEnv, tmpDir } from '../launcher/cluster';
import { history, jobRuns, triples } from '../tracking/helpers';
import { mlflowUp, uniqueName } from '../tracking/server';

jest.setTimeout(240_000);
const T0 = 1764669000;

/** Appends raw bytes to rank R's log and one time per newline to its .out.ts. */
function append(dir: string, rank: number, data: Buffer | string, at: { t: number }): void {
  const buf = Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8');
  fs.appendFileSync(path.join(dir, 'logs', `rank-${rank}.out`), buf);
  let ts = '';
  for (const b of buf) if (b === 0x0a) ts += `${at.t++}.250000\n`;
  if (ts) fs.appendFileSync(path.join(dir, 'logs', `rank-${rank}.out.ts`), ts);
}

const poly = (e: number, r: number, loss: string) => `epoch ${e}, loss = ${loss}, rank ${r}/2 (n${r + 1}).\n`;

test('garbage, huge lines, NaN/Inf, partial and truncated logs: no crash, counted, every point once', async () => {
  const uri = mlflowUp();
  const dir = path.join(tmpDir('hostile-logs'), 'run');
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
  await writeJob(
    dir,
    jobRecord({ job_id: uniqueName('hl'), spec: { ...jobRecord().spec, nodes: 2, world_size: 2 } }, 2),
  );
  for (const r of [0, 1]) await writeFacts(dir, r, 2);
  const env = clusterEnv({ MLFLOW_TRACKING_URI: uri });
  const experiment = uniqueName('hostile-logs');
  const at = [{ t: T0 }, { t: T0 }];
  let garbage = 0; // non-blank lines that are not metrics: must be counted as skipped

  // Rank 0: metric lines between every kind of junk.
  append(dir, 0, poly(0, 0, '1.5'), at[0]);
  append(
    dir,
    0,
    Buffer.concat([
      Buffer.from([0x00, 0x01, 0xff, 0xfe, 0x80, 0x1b, 0x5b, 0x32, 0x4a, 0x00]),
      Buffer.from('\n'),
    ]),
    at[0],
  );
  garbage++;
  append(
    dir,
    0,
    Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xf0, 0x28, 0x8c, 0xbc, 0xed, 0xa0, 0x80, 0x0a]),
    at[0],
  );
  garbage++; // invalid UTF-8
  append(dir, 0, poly(1, 0, '1.25'), at[0]);
  append(dir, 0, 'A'.repeat(1 << 20) + '\n', at[0]);
  garbage++; // 1 MB line
  const rnd = Buffer.alloc(1 << 20);
  for (let i = 0; i < rnd.length; i++) rnd[i] = ((i * 2654435761) >>> 13) & 0xff;
  for (let i = 0; i < rnd.length; i++) if (rnd[i] === 0x0a || rnd[i] === 0x0d) rnd[i] = 0x20;
  append(dir, 0, Buffer.concat([rnd, Buffer.from('\n')]), at[0]);
  garbage++; // 1 MB of binary
  append(
    dir,
    0,
    `{"track_launch": 1, "step": 2, "metrics": {"loss": 1.0, "pad": "${'x'.repeat((1 << 20) - 100)}"}}\n`,
    at[0],
  ); // a JSON line just under the 1 MiB line limit: loss counts, the string is no metric
  append(dir, 0, poly(3, 0, 'nan'), at[0]);
  append(dir, 0, poly(4, 0, 'inf'), at[0]);
  append(
    dir,
    0,
    '{"track_launch": 1, "step": 5, "metrics": {"loss": NaN, "acc": Infinity, "neg": -Infinity}}\n',
    at[0],
  );
  append(dir, 0, poly(6, 0, '0.75').replace('\n', '\r\n'), at[0]); // CRLF
  append(dir, 0, '\n   \n\t\n', at[0]); // blank lines: neither points nor skipped
  append(dir, 0, 'epoch 7, loss = 0.6', at[0]); // a partial line: waits for its newline
  let r = await cli(['ingest', dir, '--offline', '--json'], { env });
  expect({ code: r.code, err: r.stderr.slice(-1500) }).toEqual({ code: 0, err: expect.any(String) });
  append(dir, 0, '5, rank 0/2 (n1).\n', at[0]); // ... which arrives now: one line, epoch 7, loss 0.65

  // Rank 1: ingested once, then its log is truncated (copytruncate) and written again.
  for (let e = 0; e < 6; e++) append(dir, 1, poly(e, 1, String(1 / (e + 1))), at[1]);
  r = await cli(['ingest', dir, '--offline', '--json'], { env });
  expect(r.code).toBe(0);
  const out1 = path.join(dir, 'logs', 'rank-1.out');
  fs.truncateSync(out1, 0);
  for (let e = 6; e < 9; e++) append(dir, 1, poly(e, 1, String(1 / (e + 1))), at[1]);
  append(dir, 1, 'epoch 9, loss = 0.1, rank 1/2 (n2).', at[1]); // the job ends mid-line: no newline ever

  await endJob(dir, 'COMPLETED');
  r = await cli(['sync', dir, '--experiment', experiment, '--json'], { env, timeoutMs: 120_000 });
  expect({ code: r.code, err: r.code === 0 ? '' : r.stderr.slice(-2000) }).toEqual({ code: 0, err: '' });
  const summary = JSON.parse(r.stdout);
  expect(summary).toMatchObject({ complete: true, pending: 0 });
  expect(summary.skipped).toBeGreaterThanOrEqual(garbage);

  const series = await readRunMetrics(dir);
  const steps = (rank: number, key: string) =>
    series[rank].points.filter((p) => p.key === key).map((p) => [p.step, p.value]);
  expect(steps(0, 'loss')).toEqual([
    [0, 1.5],
    [1, 1.25],
    [2, 1.0],
    [3, NaN],
    [4, Infinity],
    [5, NaN],
    [6, 0.75],
    [7, 0.65],
  ]);
  expect(steps(0, 'acc')).toEqual([[5, Infinity]]);
  expect(steps(0, 'neg')).toEqual([[5, -Infinity]]);
  // The truncation is reported, not silent.
  expect(r.stderr + JSON.stringify(summary.warnings ?? [])).toMatch(/rank-1\.out was truncated/);

  const client = await MlflowClient.connect(uri, {});
  const exp = await client.getExperimentByName(experiment);
  const runs = await jobRuns(
    client,
    exp!.experiment_id,
    JSON.parse(fs.readFileSync(path.join(dir, 'tracking', 'state.json'), 'utf8')).job_key,
  );
  // Rank 1: the lines read before the cut once, the lines after it, and the unterminated last line
  // (the job has ended: it is complete as it will ever be).
  const h1 = await history(client, runs.ranks.get(1)!.info.run_id, 'loss');
  expect(h1.map(([s]) => s)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(steps(0, 'loss').length).toBe(8);
  for (const rank of [0]) {
    for (const key of ['loss', 'acc', 'neg']) {
      const h = await history(client, runs.ranks.get(rank)!.info.run_id, key);
      // MLflow's SQL store keeps +-Infinity as +-1.7976931348623157e308.
      const want = triples(series[rank].points, key).map(([s, v, t]): [number, number, number] => [
        s,
        v === Infinity ? 1.7976931348623157e308 : v === -Infinity ? -1.7976931348623157e308 : v,
        t,
      ]);
      expect([rank, key, h]).toEqual([rank, key, want]);
    }
  }
});
