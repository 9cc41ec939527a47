// 1. Ingestion into a real MLflow server (sqlite backend, one uvicorn worker, loopback): points per
// second of track-launch's ingest, of the official Python client on the same server and data
// (log_batch with full batches; fluent API with async logging), and the server's ceiling (prebuilt
// log-batch payloads over keep-alive connections). All modes run side by side in the same run, in a
// rotating order per repetition so the growing database does not favour one of them.
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import { ingestRunDir, syncRunDir } from '../tracking-plugin';
import { BenchOptions, log, machine, median, nowMs, round, ROOT, runProc, sh, Target } from './common';
import { createExperiment, createRun, sendAll } from './mlflow-rest';
import { makeRunDir, payloadsFromSpool, startServer } from './ingest-fixture';

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
): Promise<ModeResult> {
  const r = await runProc(
    PY,
    [path.join(ROOT, 'bench', 'ingest_py.py'), uri, spoolDir, exp, mode, String(maxPoints)],
    { timeoutMs: 900_000 },
  );
  if (r.code !== 0) throw new Error(`ingest_py.py ${mode} failed (${r.code}): ${r.stderr.slice(-2000)}`);
  const j = JSON.parse(r.stdout.trim().split('\n').pop() as string) as { points: number; seconds: number };
  return { seconds: j.seconds, points: j.points, pps: j.points / j.seconds };
}

async function ceiling(
  spoolDir: string,
  uri: string,
  exp: string,
  concurrency: number,
  maxPoints: number,
): Promise<ModeResult> {
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
    let payloads = payloadsFromSpool(spoolDir, ids);
    // interleave streams (as concurrent ranks would), then cut to the budget
    payloads = payloads
      .map((p, i) => ({ p, k: i % 97 }))
      .sort((a, b) => a.k - b.k)
      .map((x) => x.p);
    let n = 0;
    payloads = payloads.filter((p) => (n += p.points) <= maxPoints);
    const points = payloads.reduce((a, p) => a + p.points, 0);
    const ms = await sendAll(agent, uri, payloads, concurrency);
    return { seconds: ms / 1000, points, pps: points / (ms / 1000) };
  } finally {
    agent.destroy();
  }
}

/** A fresh server answers its first requests slowly (lazy imports, cold sqlite pages): warm it up with a
 *  small ingest of its own before anything is measured, so the first mode measured is not penalised. */
async function warmUp(uri: string, tmp: string): Promise<void> {
  const dir = path.join(tmp, 'ingest-warmup');
  makeRunDir(dir, 2, 3000);
  await ingestRunDir(dir, { offline: true, graceMs: 0 });
  await syncRunDir(dir, { trackingUri: uri, experiment: `bench-warmup-${Date.now()}`, graceMs: 0 });
  await ceiling(path.join(dir, 'tracking', 'spool'), uri, `bench-warmup-c-${Date.now()}`, 2, 5000);
  fs.rmSync(dir, { recursive: true, force: true });
}

export async function benchIngest(o: BenchOptions): Promise<{ result: unknown; targets: Target[] }> {
  const cases = o.quick
    ? [
        { ranks: 3, steps: 2000, reps: 1 },
        { ranks: 16, steps: 1000, reps: 1 },
      ]
    : [
        { ranks: 3, steps: 10_000, reps: 2 },
        { ranks: 16, steps: 10_000, reps: 1 },
        { ranks: 64, steps: 10_000, reps: 1 },
      ];
  const server = startServer(o.tmp);
  log('ingest: MLflow at', server.uri);
  const onSignal = (sig: NodeJS.Signals) => {
    server.stop(); // the server runs in its own process group: stop it, then end as the signal would
    fs.rmSync(o.tmp, { recursive: true, force: true });
    process.exit(sig === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const results: Record<string, unknown>[] = [];
  const targets: Target[] = [];
  try {
    await warmUp(server.uri, o.tmp);
    for (const c of cases) {
      const runDir = path.join(o.tmp, `ingest-${c.ranks}`);
      makeRunDir(runDir, c.ranks, c.steps);
      const spool = path.join(runDir, 'tracking', 'spool');
      const spoolCopy = path.join(o.tmp, `spool-${c.ranks}`);
      const modes: Record<string, ModeResult[]> = {
        ours: [],
        py_log_batch: [],
        py_fluent_async: [],
        ceiling: [],
      };
      const stages: { stage1_s: number; stage2_s: number }[] = [];
      const ceilingBy: Record<number, number[]> = {};
      const errors: Record<string, string[]> = {};
      const order = ['ours', 'py_log_batch', 'py_fluent_async', 'ceiling'];
      for (let rep = 0; rep < c.reps; rep++) {
        const rot = order.map((_, i) => order[(i + rep) % order.length]);
        for (const m of rot) {
          const exp = `bench-${m}-${c.ranks}x${c.steps}-${rep}-${Date.now()}`;
          try {
            if (m === 'ours') {
              const r = await ours(runDir, server.uri, exp);
              modes.ours.push(r);
              stages.push({ stage1_s: r.stage1_s, stage2_s: r.stage2_s });
              fs.rmSync(spoolCopy, { recursive: true, force: true });
              fs.cpSync(spool, spoolCopy, { recursive: true });
            } else {
              if (!fs.existsSync(spoolCopy)) {
                // the Python client and the ceiling send the points ingest spooled: stage 1 offline first
                fs.rmSync(path.join(runDir, 'tracking'), { recursive: true, force: true });
                await ingestRunDir(runDir, { offline: true, graceMs: 0 });
                fs.cpSync(spool, spoolCopy, { recursive: true });
              }
              if (m === 'py_log_batch') modes[m].push(await python('batch', spoolCopy, server.uri, exp));
              else if (m === 'py_fluent_async')
                modes[m].push(await python('async', spoolCopy, server.uri, exp, o.quick ? 1000 : 2000)); // a prefix: see ingest_py.py
              else {
                let best: ModeResult | undefined;
                for (const cc of o.quick ? [1, 4] : [1, 4, 8]) {
                  const r = await ceiling(
                    spoolCopy,
                    server.uri,
                    `${exp}-c${cc}`,
                    cc,
                    o.quick ? 6_000 : 30_000,
                  );
                  (ceilingBy[cc] ??= []).push(r.pps);
                  if (!best || r.pps > best.pps) best = r;
                }
                modes.ceiling.push(best as ModeResult);
              }
            }
          } catch (err) {
            // a failed mode is a result too (e.g. the server refusing concurrent requests): record, go on
            (errors[m] ??= []).push((err as Error).message.slice(0, 600));
            log(
              `ingest ${c.ranks}x${c.steps} rep ${rep} ${m}: FAILED: ${(err as Error).message.slice(0, 300)}`,
            );
            continue;
          }
          const last = modes[m][modes[m].length - 1];
          log(
            `ingest ${c.ranks}x${c.steps} rep ${rep} ${m}: ${last.points} points in ${last.seconds.toFixed(2)} s = ${Math.round(last.pps)} points/s (load ${machine().loadavg})`,
          );
        }
      }
      const med = (m: string) => median(modes[m].map((x) => x.pps));
      const pyBest = Math.max(med('py_log_batch'), med('py_fluent_async'));
      const s2 = median(stages.map((s) => s.stage2_s));
      const sendPps = (modes.ours[0]?.points ?? 0) / s2;
      const row = {
        ranks: c.ranks,
        steps: c.steps,
        points: modes.ours[0]?.points,
        reps: c.reps,
        points_per_s: {
          ours: round(med('ours')),
          ours_send_only: round(sendPps),
          py_log_batch: round(med('py_log_batch')),
          py_fluent_async: round(med('py_fluent_async')),
          ceiling: round(med('ceiling')),
        },
        ceiling_by_concurrency: Object.fromEntries(
          Object.entries(ceilingBy).map(([k, v]) => [k, round(median(v))]),
        ),
        ours_stage1_s: round(median(stages.map((s) => s.stage1_s))),
        ours_stage2_s: round(s2),
        ratio_vs_python_best: round(med('ours') / pyBest),
        ratio_vs_ceiling: round(med('ours') / med('ceiling')),
        runs: modes,
        errors,
      };
      results.push(row);
      const failed = errors.ours?.length
        ? ` (ours failed ${errors.ours.length} of ${c.reps}: ${errors.ours[0].slice(0, 160)})`
        : '';
      targets.push({
        what: `ingest ${c.ranks} ranks x ${c.steps}: vs Python best`,
        target: '>= 1.5x',
        measured: failed
          ? `ours failed${failed}; Python best ${Math.round(pyBest)} points/s`
          : `${row.ratio_vs_python_best}x (${Math.round(med('ours'))} vs ${Math.round(pyBest)} points/s)`,
        met: !failed && row.ratio_vs_python_best >= 1.5,
      });
      targets.push({
        what: `ingest ${c.ranks} ranks x ${c.steps}: vs server ceiling`,
        target: '>= 80%',
        measured: failed
          ? `ours failed${failed}; ceiling ${Math.round(med('ceiling'))} points/s`
          : `${Math.round(100 * row.ratio_vs_ceiling)}% (ceiling ${Math.round(med('ceiling'))} points/s)`,
        met: !failed && row.ratio_vs_ceiling >= 0.8,
      });
      fs.rmSync(runDir, { recursive: true, force: true });
      fs.rmSync(spoolCopy, { recursive: true, force: true });
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    server.stop();
  }
  return {
    result: {
      server:
        'mlflow ' +
        sh(`${PY} -c "import mlflow; print(mlflow.__version__)"`).trim() +
        ', sqlite, 1 worker, loopback',
      cases: results,
    },
    targets,
  };
}
