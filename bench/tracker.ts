// 7. Tracking beside the job, on one PostgreSQL 15 + `mlflow server --workers 4` (bench/pg-server.sh),
// side by side in one run, each repetition running every part once in rotating order:
//  - cpu64: `track-launch ingest --follow` beside a 64-rank job logging a line per rank every second:
//    its CPU time and memory over a steady-state window (tracker-live.ts);
//  - lag8, lag256: live lag from a line's time on the node to its point in MLflow, at 8 and 256 ranks,
//    with the default poll;
//  - sync: a finished run dir of 1,024 ranks x 100 steps synced by ours against the official Python
//    client (ingest-modes.ts, as the ingestion benchmark measures them).
import * as fs from 'fs';
import * as path from 'path';
import { ingestRunDir } from '../tracking-plugin';
import { BenchOptions, log, machine, median, percentile, round, Target } from './common';
import { makeRunDir, startPgServer } from './ingest-fixture';
import { ours, python, type ModeResult } from './ingest-modes';
import { warmUp } from './ingest-servers';
import { liveRun, PROBE_MS, type LiveResult } from './tracker-live';

export interface TrackerSettings {
  reps: number;
  cpu: { ranks: number; warmS: number; windowS: number };
  lag: { ranks: number[]; warmS: number; windowS: number };
  sync: { ranks: number; steps: number };
}

/** The full suite's settings, and --quick's (a short check that every part works). */
export function trackerSettings(o: BenchOptions): TrackerSettings {
  const s: TrackerSettings = o.quick
    ? {
        reps: 1,
        cpu: { ranks: 64, warmS: 15, windowS: 60 },
        lag: { ranks: [8, 256], warmS: 20, windowS: 30 },
        sync: { ranks: 256, steps: 100 },
      }
    : {
        reps: 3,
        cpu: { ranks: 64, warmS: 60, windowS: 600 },
        lag: { ranks: [8, 256], warmS: 30, windowS: 120 },
        sync: { ranks: 1024, steps: 100 },
      };
  if (o.trackerWindowS !== undefined) s.cpu.windowS = o.trackerWindowS;
  if (o.trackerReps !== undefined) s.reps = o.trackerReps;
  return s;
}

const PARTS = ['cpu64', 'lag8', 'lag256', 'sync'] as const;
type Part = (typeof PARTS)[number];
const SYNC_MODES = ['ours', 'py_log_batch', 'py_fluent_async'] as const;
type SyncMode = (typeof SYNC_MODES)[number];
/** The fluent async client's prefix (it runs at tens of points/s; see the ingestion benchmark). */
const ASYNC_PREFIX = 200;
const ASYNC_STREAMS = 4;

const MIB_GOAL = 150;
const CPU_GOAL_PCT = 1;
const LAG_GOAL_S = 5;
const SYNC_GOAL = 1.5;

/** One repetition of the sync comparison, modes in the rotation's order. */
async function syncOnce(
  uri: string,
  runDir: string,
  spool: string,
  rep: number,
  out: Record<SyncMode, ModeResult[]>,
): Promise<void> {
  const rot = SYNC_MODES.map((_, i) => SYNC_MODES[(i + rep) % SYNC_MODES.length]);
  for (const m of rot) {
    const exp = `bench-tracker-sync-${m}-${rep}-${Date.now()}`;
    const r =
      m === 'ours'
        ? await ours(runDir, uri, exp)
        : m === 'py_log_batch'
          ? await python('batch', spool, uri, exp)
          : await python('async', spool, uri, exp, ASYNC_PREFIX, ASYNC_STREAMS);
    out[m].push(r);
    log(
      `tracker sync rep ${rep} ${m}: ${r.points} points in ${r.seconds.toFixed(2)} s = ${Math.round(r.pps)} points/s (load ${machine().loadavg})`,
    );
  }
}

const fmtS = (ms: number) => (ms / 1000).toFixed(2);

function targetsOf(
  s: TrackerSettings,
  live: Record<string, LiveResult[]>,
  sync: Record<SyncMode, ModeResult[]>,
  errors: Record<string, string[]>,
): Target[] {
  const failed = (p: string) =>
    errors[p]?.length ? `${errors[p].length} of ${s.reps} failed: ${errors[p][0].slice(0, 160)}; ` : '';
  const delivered = (rs: LiveResult[]) =>
    rs.every((r) => r.missing === 0 && r.duplicates === 0 && r.exit_code === 0);
  const lost = (rs: LiveResult[]) =>
    delivered(rs)
      ? ''
      : ` (NOT every point once: missing ${rs.map((r) => r.missing).join('/')}, duplicates ${rs.map((r) => r.duplicates).join('/')})`;
  const targets: Target[] = [];
  const cpu = live.cpu64 ?? [];
  const what = `tracker beside a ${s.cpu.ranks}-rank job (a line per rank per second), ${s.cpu.windowS} s window`;
  targets.push({
    what: `${what}: CPU`,
    target: `< ${CPU_GOAL_PCT}% of one core`,
    measured: `${failed('cpu64')}${cpu.length ? `${round(median(cpu.map((r) => r.cpu_pct_of_one_core)))}% median (reps: ${cpu.map((r) => `${r.cpu_pct_of_one_core}%`).join(', ')})${lost(cpu)}` : 'none'}`,
    met:
      cpu.length > 0 &&
      !errors.cpu64?.length &&
      delivered(cpu) &&
      cpu.every((r) => r.cpu_pct_of_one_core < CPU_GOAL_PCT),
  });
  const peak = Math.max(...cpu.map((r) => r.peak_mib));
  targets.push({
    what: `${what}: memory`,
    target: `< ${MIB_GOAL} MiB`,
    measured: `${failed('cpu64')}${cpu.length ? `peak ${round(peak)} MiB (VmHWM since start, max over reps: ${cpu.map((r) => round(r.peak_mib)).join(', ')}; RSS in the window at most ${round(Math.max(...cpu.map((r) => r.rss_max_mib)))})` : 'none'}`,
    met: cpu.length > 0 && !errors.cpu64?.length && peak < MIB_GOAL,
  });
  for (const ranks of s.lag.ranks) {
    const p = `lag${ranks}` as Part;
    const rs = live[p] ?? [];
    const lags = rs.flatMap((r) => r.lags_ms ?? []);
    const unseen = rs.reduce((a, r) => a + (r.unseen ?? 0), 0);
    const p95 = percentile(lags, 95);
    targets.push({
      what: `live lag, line on the node to point in MLflow, ${ranks} ranks, default poll`,
      target: `p95 < ${LAG_GOAL_S} s`,
      measured: `${failed(p)}${lags.length ? `p50 ${fmtS(percentile(lags, 50))} s, p95 ${fmtS(p95)} s, max ${fmtS(Math.max(...lags))} s (${lags.length} points of ${rs[0]?.probe_ranks?.length} ranks, probed every ${PROBE_MS} ms${unseen ? `; ${unseen} never seen` : ''})${lost(rs)}` : 'none'}`,
      met: lags.length > 0 && !errors[p]?.length && unseen === 0 && delivered(rs) && p95 < LAG_GOAL_S * 1000,
    });
  }
  const med = (m: SyncMode) => median(sync[m].map((x) => x.pps));
  const pyBest = Math.max(med('py_log_batch'), med('py_fluent_async'));
  const ratio = med('ours') / pyBest;
  targets.push({
    what: `sync ${s.sync.ranks} ranks x ${s.sync.steps} to postgresql (4 workers): vs Python best`,
    target: `>= ${SYNC_GOAL}x`,
    measured: `${failed('sync')}${sync.ours.length ? `${round(ratio)}x (${Math.round(med('ours'))} vs ${Math.round(pyBest)} points/s; ${sync.ours.length} reps)` : 'none'}`,
    met: sync.ours.length > 0 && !errors.sync?.length && ratio >= SYNC_GOAL,
  });
  return targets;
}

export async function benchTracker(o: BenchOptions): Promise<{ result: unknown; targets: Target[] }> {
  const s = trackerSettings(o);
  log(`tracker: settings ${JSON.stringify(s)}`);
  const runDir = path.join(o.tmp, `tracker-sync-${s.sync.ranks}x${s.sync.steps}`);
  makeRunDir(runDir, s.sync.ranks, s.sync.steps);
  await ingestRunDir(runDir, { offline: true, graceMs: 0 });
  const spool = path.join(o.tmp, 'tracker-sync-spool');
  fs.cpSync(path.join(runDir, 'tracking', 'spool'), spool, { recursive: true });
  const server = startPgServer(4);
  log(`tracker: MLflow (PostgreSQL 15, 4 workers) at ${server.uri}`);
  const onSignal = (sig: NodeJS.Signals) => {
    server.stop();
    fs.rmSync(o.tmp, { recursive: true, force: true });
    process.exit(sig === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const live: Record<string, LiveResult[]> = {};
  const sync: Record<SyncMode, ModeResult[]> = { ours: [], py_log_batch: [], py_fluent_async: [] };
  const errors: Record<string, string[]> = {};
  const orders: string[] = [];
  try {
    await warmUp(server.uri, o.tmp);
    for (let rep = 0; rep < s.reps; rep++) {
      const rot = PARTS.map((_, i) => PARTS[(i + rep) % PARTS.length]);
      orders.push(rot.join(','));
      for (const p of rot) {
        try {
          if (p === 'sync') await syncOnce(server.uri, runDir, spool, rep, sync);
          else {
            const ranks = p === 'cpu64' ? s.cpu.ranks : Number(p.slice(3));
            const w = p === 'cpu64' ? s.cpu : s.lag;
            const r = await liveRun(
              server.uri,
              o.tmp,
              { ranks, warmS: w.warmS, windowS: w.windowS, probe: p !== 'cpu64' },
              `rep ${rep} ${p}`,
            );
            (live[p] ??= []).push(r);
          }
        } catch (err) {
          (errors[p] ??= []).push((err as Error).message.slice(0, 2000));
          log(`tracker rep ${rep} ${p}: FAILED: ${(err as Error).message.slice(0, 600)}`);
        }
      }
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    server.stop();
  }
  const lagSummary = (rs: LiveResult[] = []) => {
    const all = rs.flatMap((r) => r.lags_ms ?? []);
    return {
      points: all.length,
      p50_s: round(percentile(all, 50) / 1000),
      p95_s: round(percentile(all, 95) / 1000),
      max_s: round(Math.max(...all) / 1000),
    };
  };
  return {
    result: {
      server: 'PostgreSQL 15 (fsync on), mlflow server --workers 4 (bench/pg-server.sh)',
      settings: s,
      probe_ms: PROBE_MS,
      orders,
      lag: Object.fromEntries(s.lag.ranks.map((n) => [n, lagSummary(live[`lag${n}`])])),
      // the per-point lags stay out of the file: their summary per repetition instead
      live: Object.fromEntries(
        Object.entries(live).map(([k, rs]) => [
          k,
          rs.map(({ lags_ms, ...r }) => (lags_ms ? { ...r, lag: lagSummary([{ ...r, lags_ms }]) } : r)),
        ]),
      ),
      sync: {
        ranks: s.sync.ranks,
        steps: s.sync.steps,
        async_prefix_points: ASYNC_PREFIX,
        async_streams: ASYNC_STREAMS,
        runs_by_mode: sync,
      },
      errors,
    },
    targets: targetsOf(s, live, sync, errors),
  };
}
