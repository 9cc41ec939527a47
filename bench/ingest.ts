// 1. Ingestion into two real MLflow servers, each started and stopped here (ingest-servers.ts): the
// test server (sqlite, one uvicorn worker) and a production-style one (PostgreSQL 15 behind `mlflow
// server --workers 4`). Per server and case: points per second of track-launch's ingest, of the
// official Python client on the same server and data, and the server's ceiling (ingest-modes.ts);
// medians, ratios and table rows in ingest-report.ts. REPS repetitions, each running every mode
// once, the order rotated per repetition so that the growing database favours none of them.
import * as fs from 'fs';
import * as path from 'path';
import { ingestRunDir } from '../tracking-plugin';
import { BenchOptions, log, machine, sh, Target } from './common';
import { makeRunDir, type Server } from './ingest-fixture';
import { ceiling, ours, oursTags, PY, python } from './ingest-modes';
import type { Tag } from './mlflow-rest';
import { caseReport, MODES, type CaseRuns } from './ingest-report';
import { SERVERS, warmUp, type ServerKind } from './ingest-servers';

/** Requests in flight for the ceiling (each concurrency sends every point once per repetition). */
export const CEILING_CONCURRENCY = [1, 4, 8];
/** Repetitions per case and server, modes in rotating order (BENCHMARKS.md says why seven). */
export const REPS = 7;
/** Points the fluent async mode sends per repetition (a prefix: it runs at tens of points/s), over its
 *  first ASYNC_STREAMS streams (its run start and end cost about a second per run here). */
const ASYNC_PREFIX = { full: 200, quick: 150 };
const ASYNC_STREAMS = 4;

/** Two small cases, where creating the runs weighs, and a longer one where sending does. */
export function ingestCases(quick: boolean): { ranks: number; steps: number }[] {
  return quick
    ? [{ ranks: 4, steps: 500 }]
    : [
        { ranks: 4, steps: 1_500 },
        { ranks: 32, steps: 250 },
        { ranks: 4, steps: 4_000 },
      ];
}

/** One case on one server: REPS repetitions, each running every mode once, the order rotated. */
async function runCase(
  server: Server,
  kind: ServerKind,
  c: { ranks: number; steps: number },
  o: BenchOptions,
): Promise<{ row: Record<string, unknown>; targets: Target[] }> {
  const runDir = path.join(o.tmp, `ingest-${kind.name}-${c.ranks}x${c.steps}`);
  makeRunDir(runDir, c.ranks, c.steps);
  const spool = path.join(runDir, 'tracking', 'spool');
  const spoolCopy = path.join(o.tmp, `spool-${kind.name}-${c.ranks}x${c.steps}`);
  // the data every mode sends: what the spool stage writes (ours spools it again each time, timed)
  await ingestRunDir(runDir, { offline: true, graceMs: 0 });
  fs.cpSync(spool, spoolCopy, { recursive: true });
  const runs: CaseRuns = {
    server: kind,
    ...c,
    reps: REPS,
    orders: [],
    modes: { ours: [], py_log_batch: [], py_fluent_async: [] },
    stage1: [],
    ceilingBy: {},
    ceilingTags: [],
    errors: {},
  };
  const tag = `${kind.name} ${c.ranks}x${c.steps}`;
  const load = () => `(load ${machine().loadavg})`;
  // the ceiling's runs carry the tags ours gave its runs (ours runs first in the first repetition)
  let runTags = new Map<string, Tag[]>();
  for (let rep = 0; rep < REPS; rep++) {
    const rot = MODES.map((_, i) => MODES[(i + rep) % MODES.length]);
    runs.orders.push(rot.join(','));
    for (const m of rot) {
      const exp = `bench-${m}-${kind.name}-${c.ranks}x${c.steps}-${rep}-${Date.now()}`;
      try {
        if (m === 'ceiling') {
          for (const cc of CEILING_CONCURRENCY) {
            const r = await ceiling(spoolCopy, server.uri, `${exp}-c${cc}`, cc, runTags);
            (runs.ceilingBy[cc] ??= []).push(r);
            log(
              `ingest ${tag} rep ${rep} ceiling @${cc}: ${Math.round(r.points_only.pps)} points/s, with the runs ${Math.round(r.with_runs.pps)} ${load()}`,
            );
          }
          continue;
        }
        let r;
        if (m === 'ours') {
          const x = await ours(runDir, server.uri, exp);
          runs.stage1.push(x.stage1_s);
          if (!runTags.size) {
            runTags = await oursTags(server.uri, exp);
            runs.ceilingTags = [...runTags.values()].map((t) => t.length);
          }
          r = x;
        } else if (m === 'py_log_batch') r = await python('batch', spoolCopy, server.uri, exp);
        else {
          const prefix = ASYNC_PREFIX[o.quick ? 'quick' : 'full'];
          r = await python('async', spoolCopy, server.uri, exp, prefix, ASYNC_STREAMS);
        }
        runs.modes[m].push(r);
        log(
          `ingest ${tag} rep ${rep} ${m}: ${r.points} points in ${r.seconds.toFixed(2)} s = ${Math.round(r.pps)} points/s ${load()}`,
        );
      } catch (err) {
        // a failed mode is a result too (e.g. the server refusing concurrent requests): record, go on
        (runs.errors[m] ??= []).push((err as Error).message.slice(0, 600));
        log(`ingest ${tag} rep ${rep} ${m}: FAILED: ${(err as Error).message.slice(0, 300)}`);
      }
    }
  }
  fs.rmSync(runDir, { recursive: true, force: true });
  fs.rmSync(spoolCopy, { recursive: true, force: true });
  return caseReport(runs);
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
