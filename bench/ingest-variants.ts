// Ours against itself on one server: the same sync at two numbers of requests in flight, side by
// side, same data, order rotated per repetition, so that a growing database or a busy host favours
// neither. `node dist/bench/ingest-variants.js sqlite|postgresql [N M]` (default 4 1): prints one JSON
// object (per case the points/s of every sync of the send stage, the spool made beforehand, and
// the load).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ingestRunDir } from '../tracking-plugin';
import { log, median, nowMs, round } from './common';
import { makeRunDir } from './ingest-fixture';
import { ingestCases } from './ingest';
import { SERVERS, warmUp } from './ingest-servers';

const REPS = Number(process.env.BENCH_REPS ?? 8);

async function main(): Promise<void> {
  const [which, ...counts] = process.argv.slice(2);
  const kind = SERVERS.find((s) => s.name === which);
  if (!kind) throw new Error(`usage: ingest-variants.js ${SERVERS.map((s) => s.name).join('|')} [N M]`);
  const variants = (counts.length ? counts : ['4', '1']).map(Number);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-bench-variants-'));
  const server = kind.start({ quick: false, tmp });
  const load: number[][] = [os.loadavg()];
  const cases: Record<string, unknown>[] = [];
  try {
    await warmUp(server.uri, tmp);
    for (const c of ingestCases(false)) {
      const runDir = path.join(tmp, `run-${c.ranks}x${c.steps}`);
      makeRunDir(runDir, c.ranks, c.steps);
      const pps: Record<string, number[]> = {};
      for (let rep = 0; rep < REPS; rep++) {
        for (let k = 0; k < variants.length; k++) {
          const n = variants[(k + rep) % variants.length];
          fs.rmSync(path.join(runDir, 'tracking'), { recursive: true, force: true });
          await ingestRunDir(runDir, { offline: true, graceMs: 0 }); // the spool, untimed
          const t0 = nowMs();
          const s = await ingestRunDir(runDir, {
            trackingUri: server.uri,
            experiment: `variant-${n}-${c.ranks}x${c.steps}-${rep}-${Date.now()}`,
            graceMs: 0,
            requestsInFlight: n,
          });
          const rate = (s.pointsSent ?? 0) / ((nowMs() - t0) / 1000);
          if (s.pending !== 0 || s.lastError) throw new Error(`ingest left points unsent: ${s.lastError}`);
          (pps[`in_flight_${n}`] ??= []).push(round(rate, 4));
          log(`${c.ranks}x${c.steps} rep ${rep} ${n} in flight: ${Math.round(rate)} points/s`);
        }
        load.push(os.loadavg());
      }
      const medians = Object.fromEntries(Object.entries(pps).map(([k, xs]) => [k, median(xs)]));
      cases.push({ case: `${c.ranks}x${c.steps}`, medians, pps });
    }
  } finally {
    server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify({ server: kind.label, reps: REPS, cases, loadavg: load }) + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
