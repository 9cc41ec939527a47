// The ingestion benchmark's modes, each sending one case's points into a new experiment and
// timing itself: ours (one ingest, as `track-launch ingest` runs it), the official Python client
// (ingest_py.py), and the server's ceiling (prebuilt payloads over keep-alive sockets).
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import { ingestRunDir } from '../tracking-plugin';
import { nowMs, ROOT, runProc } from './common';
import { payloadsFor, prebuiltFromSpool } from './ingest-fixture';
import { createExperiment, createRuns, sendAll, streamTags, type Tag } from './mlflow-rest';

export const PY = path.join(ROOT, '.venv', 'bin', 'python');

export interface ModeResult {
  seconds: number;
  points: number;
  pps: number;
}

const result = (points: number, seconds: number): ModeResult => ({ seconds, points, pps: points / seconds });

/** Ours as `track-launch ingest <run-dir>` runs it: one `ingestRunDir` with the tracking URI, spool
 *  (parse, spool, fsync) and send (experiment, runs, tags, every point; the experiment and the runs
 *  go out while the spool stage reads the logs), timed as a whole. Before it, the spool stage alone
 *  (offline, timed on its own clock, its spool then removed): what parsing and spooling cost. */
export async function ours(
  runDir: string,
  uri: string,
  exp: string,
): Promise<ModeResult & { stage1_s: number }> {
  const tracking = path.join(runDir, 'tracking');
  fs.rmSync(tracking, { recursive: true, force: true });
  const t0 = nowMs();
  await ingestRunDir(runDir, { offline: true, graceMs: 0 });
  const stage1 = (nowMs() - t0) / 1000;
  fs.rmSync(tracking, { recursive: true, force: true });
  const t1 = nowMs();
  const s = await ingestRunDir(runDir, { trackingUri: uri, experiment: exp, graceMs: 0 });
  const t2 = nowMs();
  if (s.pending !== 0 || s.lastError)
    throw new Error(`ingest left ${s.pending} points unsent: ${s.lastError ?? ''}`);
  return { ...result(s.pointsSent ?? 0, (t2 - t1) / 1000), stage1_s: stage1 };
}

/** The official client (bench/ingest_py.py): `batch` log_batch of 1,000, or `async` fluent logging. */
export async function python(
  mode: 'batch' | 'async',
  spoolDir: string,
  uri: string,
  exp: string,
  maxPoints = 0,
  maxStreams = 0,
): Promise<ModeResult> {
  const script = path.join(ROOT, 'bench', 'ingest_py.py');
  const args = [script, uri, spoolDir, exp, mode, String(maxPoints), String(maxStreams)];
  const r = await runProc(PY, args, { timeoutMs: 900_000 });
  if (r.code !== 0) throw new Error(`ingest_py.py ${mode} failed (${r.code}): ${r.stderr.slice(-2000)}`);
  const j = JSON.parse(r.stdout.trim().split('\n').pop() as string) as { points: number; seconds: number };
  return result(j.points, j.seconds);
}

export interface CeilingResult {
  /** Clock from the first log-batch to the last answer (the runs exist before it starts). */
  points_only: ModeResult;
  /** Clock from creating the experiment and the runs (at the same concurrency) to the last answer. */
  with_runs: ModeResult;
}

/** The server's ceiling on the same points and the same runs as the modes it bounds: one run per
 *  spool stream, created with the tags ours gave that stream's run (`tags`, by stream; none where
 *  the map has none), every point of the spool as log-batch payloads of 1,000 metrics serialised
 *  before the clock starts (streams interleaved), `concurrency` requests in flight over keep-alive
 *  sockets, as ours sends them. One clock starts before the experiment and the runs are created, a
 *  second once they exist. */
export async function ceiling(
  spoolDir: string,
  uri: string,
  exp: string,
  concurrency: number,
  tags: ReadonlyMap<string, readonly Tag[]>,
): Promise<CeilingResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    const pre = prebuiltFromSpool(spoolDir);
    const streams = [...new Set(pre.map((p) => p.stream))];
    // interleave streams (as concurrent ranks would)
    const order = pre.map((_, i) => i).sort((a, b) => (a % 97) - (b % 97) || a - b);
    const t0 = nowMs();
    const eid = await createExperiment(agent, uri, exp);
    const ids = await createRuns(agent, uri, eid, streams, concurrency, tags);
    const payloads = payloadsFor(
      order.map((i) => pre[i]),
      ids,
    );
    const t1 = nowMs();
    await sendAll(agent, uri, payloads, concurrency);
    const t2 = nowMs();
    const points = pre.reduce((a, p) => a + p.points, 0);
    return { points_only: result(points, (t2 - t1) / 1000), with_runs: result(points, (t2 - t0) / 1000) };
  } finally {
    agent.destroy();
  }
}

/** The tags of ours' runs in experiment `exp`, by spool stream (for the ceiling's runs). */
export async function oursTags(uri: string, exp: string): Promise<Map<string, Tag[]>> {
  const agent = new http.Agent({ keepAlive: false });
  try {
    return await streamTags(agent, uri, exp);
  } finally {
    agent.destroy();
  }
}
