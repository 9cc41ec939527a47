// 1. Ingestion into two real MLflow servers, each started and stopped here: the test server (sqlite, one
// uvicorn worker) and a production-style one (PostgreSQL 15 behind `mlflow server --workers 4`,
// bench/pg-server.sh). Per server and case: points per second of track-launch's ingest, of the official
// Python client on the same server and data (log_batch with full batches; the fluent API with async
// logging, on a prefix), and the server's ceiling (every point as prebuilt log-batch payloads over
// keep-alive connections, at 1, 4 and 8 requests in flight, to as many runs as the modes use).
// REPS repetitions, each running every mode once, the order rotated per repetition so that the
// growing database favours none of them.
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import { ingestRunDir, syncRunDir } from '../tracking-plugin';
import { BenchOptions, log, machine, median, nowMs, round, ROOT, runProc, sh, Target } from './common';
import { createExperiment, createRun, sendAll } from './mlflow-rest';
import { makeRunDir, payloadsFromSpool, Server, startPgServer, startServer } from './ingest-fixture';

const PY = path.join(ROOT, '.venv', 'bin', 'python');

interface ModeResult {
  seconds: number;
  points: number;
  pps: number;
}

async function ours(
  runDir: string,
  uri: string,
  exp: string,
): Promise<ModeResult & { stage1_s: number; stage2_s: number }> {
  fs.rmSync(path.join(runDir, 'tracking'), { recursive: true, force: true });
  const t0 = nowMs();
  await ingestRunDir(runDir, { offline: true, graceMs: 0 });
  const t1 = nowMs();
  const s = await syncRunDir(runDir, { trackingUri: uri, experiment: exp, graceMs: 0 });
  const t2 = nowMs();
  if (s.pending !== 0 || s.lastError)
    throw new Error(`ingest left ${s.pending} points unsent: ${s.lastError ?? ''}`);
  const points = s.pointsSent ?? 0;
  const seconds = (t2 - t0) / 1000;
  return { seconds, points, pps: points / seconds, stage1_s: (t1 - t0) / 1000, stage2_s: (t2 - t1) / 1000 };
}

async function python(
  mode: 'batch' | 'async',
  spoolDir: string,
  uri: string,
  exp: string,
  maxPoints = 0,
  maxStreams = 0,
): Promise<ModeResult> {
  const r = await runProc(
    PY,
    [
      path.join(ROOT, 'bench', 'ingest_py.py'),
      uri,
      spoolDir,
      exp,
      mode,
      String(maxPoints),
      String(maxStreams),
    ],
    { timeoutMs: 900_000 },
  );
  if (r.code !== 0) throw new Error(`ingest_py.py ${mode} failed (${r.code}): ${r.stderr.slice(-2000)}`);
  const j = JSON.parse(r.stdout.trim().split('\n').pop() as string) as { points: number; seconds: number };
  return { seconds: j.seconds, points: j.points, pps: j.points / j.seconds };
}

/** The server's ceiling on the same points and the same runs as the modes it bounds: every point of
 *  the spool (one run per stream, created before the clock starts), as prebuilt log-batch payloads of
 *  1,000 metrics, streams interleaved, `concurrency` requests in flight over keep-alive sockets. */
async function ceiling(spoolDir: string, uri: string, exp: string, concurrency: number): Promise<ModeResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    const eid = await createExperiment(agent, uri, exp);
    const streams = fs
      .readdirSync(spoolDir)
      .filter((n) => n.endsWith('.jsonl'))
      .map((n) => n.slice(0, -6))
      .sort();
    const ids = new Map<string, string>();
    for (const s of streams) ids.set(s, await createRun(agent, uri, eid, s));
    // interleave streams (as concurrent ranks would)
    const payloads = payloadsFromSpool(spoolDir, ids)
      .map((p, i) => ({ p, k: i % 97 }))
      .sort((a, b) => a.k - b.k)
      .map((x) => x.p);
    const points = payloads.reduce((a, p) => a + p.points, 0);
    const ms = await sendAll(agent, uri, payloads, concurrency);
    return { seconds: ms / 1000, points, pps: points / (ms / 1000) };
  } finally {
    agent.destroy();
  }
}

/** A fresh server answers its first requests slowly (lazy imports, cold pages): warm it up with a
 *  small ingest of its own before anything is measured, so the first mode measured is not penalised. */
async function warmUp(uri: string, tmp: string): Promise<void> {
  const dir = path.join(tmp, 'ingest-warmup');
  makeRunDir(dir, 2, 3000);
  await ingestRunDir(dir, { offline: true, graceMs: 0 });
  await syncRunDir(dir, { trackingUri: uri, experiment: `bench-warmup-${Date.now()}`, graceMs: 0 });
  await ceiling(path.join(dir, 'tracking', 'spool'), uri, `bench-warmup-c-${Date.now()}`, 4);
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Requests in flight for the ceiling (each concurrency sends every point once per repetition). */
export const CEILING_CONCURRENCY = [1, 4, 8];
/** Repetitions per case and server, modes in rotating order. */
export const REPS = 3;
/** Points the fluent async mode sends per repetition (a prefix: it runs at tens of points/s), over its
 *  first ASYNC_STREAMS streams (its run start and end cost about a second per run here). */
const ASYNC_PREFIX = { full: 200, quick: 150 };
const ASYNC_STREAMS = 4;
const MODES = ['ours', 'py_log_batch', 'py_fluent_async', 'ceiling'] as const;
type Mode = (typeof MODES)[number];

interface ServerKind {
  name: string;
  label: string;
  start: (o: BenchOptions) => Server;
  /** The target "ours >= 1.5x Python's best" is set on this server (its workers give concurrency). */
  pythonTarget: boolean;
}
const SERVERS: ServerKind[] = [
  {
    name: 'sqlite',
    label: 'sqlite, 1 uvicorn worker (test/mlflow/up)',
    start: (o) => startServer(o.tmp),
    pythonTarget: false,
  },
  {
    name: 'postgresql',
    label: 'PostgreSQL 15 (fsync on), mlflow server --workers 4 (bench/pg-server.sh)',
    start: () => startPgServer(4),
    pythonTarget: true,
  },
];

export function ingestCases(quick: boolean): { ranks: number; steps: number }[] {
  return quick
    ? [{ ranks: 4, steps: 500 }]
    : [
        { ranks: 4, steps: 1_500 },
        { ranks: 32, steps: 250 },
      ];
}

/** One case on one server: REPS repetitions, each running every mode once, the order rotated. */
async function runCase(
  server: Server,
  kind: ServerKind,
  c: { ranks: number; steps: number },
  o: BenchOptions,
): Promise<{ row: Record<string, unknown>; targets: Target[] }> {
  const runDir = path.join(o.tmp, `ingest-${kind.name}-${c.ranks}`);
  makeRunDir(runDir, c.ranks, c.steps);
  const spool = path.join(runDir, 'tracking', 'spool');
  const spoolCopy = path.join(o.tmp, `spool-${kind.name}-${c.ranks}`);
  // the data every mode sends: what stage 1 spools (ours re-spools it each time, timed)
  await ingestRunDir(runDir, { offline: true, graceMs: 0 });
  fs.cpSync(spool, spoolCopy, { recursive: true });
  const modes: Record<Mode, ModeResult[]> = { ours: [], py_log_batch: [], py_fluent_async: [], ceiling: [] };
  const stages: { stage1_s: number; stage2_s: number }[] = [];
  const ceilingBy: Record<number, ModeResult[]> = {};
  const errors: Record<string, string[]> = {};
  const orders: string[] = [];
  const tag = `${kind.name} ${c.ranks}x${c.steps}`;
  for (let rep = 0; rep < REPS; rep++) {
    const rot = MODES.map((_, i) => MODES[(i + rep) % MODES.length]);
    orders.push(rot.join(','));
    for (const m of rot) {
      const exp = `bench-${m}-${kind.name}-${c.ranks}x${c.steps}-${rep}-${Date.now()}`;
      try {
        if (m === 'ours') {
          const r = await ours(runDir, server.uri, exp);
          modes.ours.push(r);
          stages.push({ stage1_s: r.stage1_s, stage2_s: r.stage2_s });
        } else if (m === 'py_log_batch') modes[m].push(await python('batch', spoolCopy, server.uri, exp));
        else if (m === 'py_fluent_async')
          modes[m].push(
            await python(
              'async',
              spoolCopy,
              server.uri,
              exp,
              ASYNC_PREFIX[o.quick ? 'quick' : 'full'],
              ASYNC_STREAMS,
            ),
          );
        else {
          for (const cc of CEILING_CONCURRENCY) {
            const r = await ceiling(spoolCopy, server.uri, `${exp}-c${cc}`, cc);
            (ceilingBy[cc] ??= []).push(r);
            log(`ingest ${tag} rep ${rep} ceiling @${cc}: ${Math.round(r.pps)} points/s`);
          }
          // this repetition's ceiling: its best concurrency
          modes.ceiling.push(
            CEILING_CONCURRENCY.map((cc) => ceilingBy[cc][ceilingBy[cc].length - 1]).reduce((a, b) =>
              b.pps > a.pps ? b : a,
            ),
          );
        }
      } catch (err) {
        // a failed mode is a result too (e.g. the server refusing concurrent requests): record, go on
        (errors[m] ??= []).push((err as Error).message.slice(0, 600));
        log(`ingest ${tag} rep ${rep} ${m}: FAILED: ${(err as Error).message.slice(0, 300)}`);
        continue;
      }
      const last = modes[m][modes[m].length - 1];
      log(
        `ingest ${tag} rep ${rep} ${m}: ${last.points} points in ${last.seconds.toFixed(2)} s = ${Math.round(last.pps)} points/s (load ${machine().loadavg})`,
      );
    }
  }
  fs.rmSync(runDir, { recursive: true, force: true });
  fs.rmSync(spoolCopy, { recursive: true, force: true });
  const med = (m: Mode) => median(modes[m].map((x) => x.pps));
  const pyBest = Math.max(med('py_log_batch'), med('py_fluent_async'));
  const byConc = Object.fromEntries(
    Object.entries(ceilingBy).map(([k, v]) => [k, round(median(v.map((x) => x.pps)))]),
  );
  // the ceiling: the best concurrency's median over the repetitions
  const ceil = Math.max(...Object.values(byConc));
  const s2 = median(stages.map((s) => s.stage2_s));
  const row = {
    server: kind.name,
    ranks: c.ranks,
    steps: c.steps,
    points: modes.ours[0]?.points,
    runs: c.ranks + 1,
    reps: REPS,
    orders,
    points_per_s: {
      ours: round(med('ours')),
      ours_send_only: round((modes.ours[0]?.points ?? 0) / s2),
      py_log_batch: round(med('py_log_batch')),
      py_fluent_async: round(med('py_fluent_async')),
      ceiling: round(ceil),
    },
    ceiling_by_concurrency: byConc,
    ours_stage1_s: round(median(stages.map((s) => s.stage1_s))),
    ours_stage2_s: round(s2),
    ratio_vs_python_best: round(med('ours') / pyBest),
    ratio_vs_ceiling: round(med('ours') / ceil),
    runs_by_mode: modes,
    ceiling_runs_by_concurrency: ceilingBy,
    errors,
  };
  const failed = errors.ours?.length
    ? `ours failed ${errors.ours.length} of ${REPS}: ${errors.ours[0].slice(0, 160)}; `
    : '';
  const what = `ingest ${kind.name}: ${c.ranks} ranks x ${c.steps}`;
  const targets: Target[] = [
    {
      what: `${what}: vs Python best`,
      target: kind.pythonTarget ? '>= 1.5x' : 'none on sqlite',
      measured: `${failed}${row.ratio_vs_python_best}x (${Math.round(med('ours'))} vs ${Math.round(pyBest)} points/s)`,
      met: kind.pythonTarget ? !failed && row.ratio_vs_python_best >= 1.5 : null,
    },
    {
      what: `${what}: vs server ceiling`,
      target: '>= 90%',
      measured: `${failed}${Math.round(100 * row.ratio_vs_ceiling)}% (ceiling ${Math.round(ceil)} points/s; by requests in flight ${CEILING_CONCURRENCY.map((cc) => `${cc}: ${Math.round(byConc[cc] ?? NaN)}`).join(', ')})`,
      met: !failed && row.ratio_vs_ceiling >= 0.9,
    },
  ];
  return { row, targets };
}

export async function benchIngest(o: BenchOptions): Promise<{ result: unknown; targets: Target[] }> {
  const results: Record<string, unknown>[] = [];
  const targets: Target[] = [];
  const servers: Record<string, string> = {};
  for (const kind of SERVERS) {
    const server = kind.start(o);
    servers[kind.name] = kind.label;
    log(`ingest: MLflow (${kind.label}) at ${server.uri}`);
    const onSignal = (sig: NodeJS.Signals) => {
      server.stop(); // the server runs in its own process group: stop it, then end as the signal would
      fs.rmSync(o.tmp, { recursive: true, force: true });
      process.exit(sig === 'SIGINT' ? 130 : 143);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      await warmUp(server.uri, o.tmp);
      for (const c of ingestCases(o.quick)) {
        const r = await runCase(server, kind, c, o);
        results.push(r.row);
        targets.push(...r.targets);
      }
    } finally {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      server.stop();
    }
  }
  return {
    result: {
      mlflow: sh(`${PY} -c "import mlflow; print(mlflow.__version__)"`).trim(),
      servers,
      reps: REPS,
      ceiling_concurrency: CEILING_CONCURRENCY,
      async_prefix_points: ASYNC_PREFIX[o.quick ? 'quick' : 'full'],
      async_streams: ASYNC_STREAMS,
      cases: results,
    },
    targets,
  };
}
