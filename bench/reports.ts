// 5. Reports: 64 ranks x 100,000 points, PDF, PNG and both, each in a fresh process (bench/report-child.ts):
// time and peak RSS (getrusage). Two sources: `memory` builds the data straight into columns
// (bench/synthetic-report.ts: the rendering alone); `disk` reads a run directory of 64 ranks x 100,000
// polynomial lines with their .out.ts line times and rank facts (generated once, not timed), as
// `track-launch report` does: every log parsed, then the same rendering.
import * as fs from 'fs';
import * as path from 'path';
import { BenchOptions, log, machine, median, nowMs, round, ROOT, runProc, Target } from './common';
import { makeRunDir } from './ingest-fixture';

const RANKS = 64;
const POINTS = 100_000;

/** The run directory a 64-rank job leaves: logs, line times, rank facts (8 ranks a host). */
function makeReportRunDir(dir: string): void {
  makeRunDir(dir, RANKS, POINTS);
  for (let r = 0; r < RANKS; r++) {
    const host = `node${Math.floor(r / 8) + 1}`;
    const facts = {
      version: 1,
      rank: r,
      local_rank: r % 8,
      node_rank: Math.floor(r / 8),
      world_size: RANKS,
      local_world_size: 8,
      host,
      ip: `10.0.0.${Math.floor(r / 8) + 1}`,
      iface: 'eth0',
      master_addr: '10.0.0.1',
      master_port: 29500,
      job_id: `bench${RANKS}`,
      restart: 0,
      launcher: 'srun',
      started_at: 1_796_000_000,
    };
    fs.writeFileSync(path.join(dir, 'logs', `rank-${r}.json`), JSON.stringify(facts) + '\n');
  }
}

interface Run {
  data_ms: number;
  render_ms: number;
  total_ms: number;
  max_rss_mib: number;
  wall_ms: number;
}

export async function benchReports(o: BenchOptions): Promise<{ result: unknown; targets: Target[] }> {
  const reps = o.quick ? 1 : 3;
  const child = path.join(ROOT, 'dist', 'bench', 'report-child.js');
  const runDir = path.join(o.tmp, 'report-run-dir');
  const g0 = nowMs();
  makeReportRunDir(runDir);
  const generateS = (nowMs() - g0) / 1000;
  const bytes = fs
    .readdirSync(path.join(runDir, 'logs'))
    .reduce((n, f) => n + fs.statSync(path.join(runDir, 'logs', f)).size, 0);
  log(
    `reports: run dir of ${RANKS} x ${POINTS} (${Math.round(bytes / 2 ** 20)} MiB) in ${generateS.toFixed(1)} s`,
  );
  const rows: Record<string, unknown>[] = [];
  const targets: Target[] = [];
  for (const source of ['memory', 'disk'] as const) {
    // from disk: the default of `track-launch report` (both formats); the formats apart in memory
    for (const fmt of source === 'disk' ? ['pdf,png'] : ['pdf', 'png', 'pdf,png']) {
      const runs: Run[] = [];
      for (let i = 0; i < reps; i++) {
        const out = path.join(o.tmp, `report-${source}-${fmt.replace(',', '-')}-${i}`);
        const args = [child, out, fmt, String(RANKS), String(POINTS), ...(source === 'disk' ? [runDir] : [])];
        const r = await runProc(process.execPath, args, { timeoutMs: 300_000 });
        if (r.code !== 0)
          throw new Error(`report-child ${source} ${fmt} exited ${r.code}: ${r.stderr.slice(-1000)}`);
        runs.push({ ...JSON.parse(r.stdout.trim()), wall_ms: r.ms });
        fs.rmSync(out, { recursive: true, force: true });
        log(`reports ${source} ${fmt}: ${JSON.stringify(runs[runs.length - 1])} (load ${machine().loadavg})`);
      }
      const m = (k: keyof Run) => round(median(runs.map((x) => x[k])));
      const row = {
        source,
        formats: fmt,
        ranks: RANKS,
        points: POINTS,
        reps,
        total_ms: m('total_ms'),
        data_ms: m('data_ms'),
        render_ms: m('render_ms'),
        process_wall_ms: m('wall_ms'),
        max_rss_mib: round(Math.max(...runs.map((x) => x.max_rss_mib))),
        runs,
      };
      rows.push(row);
      const what = `report 64 x 100k ${source === 'disk' ? 'from a run dir on disk' : 'in memory'}, ${fmt.toUpperCase()}`;
      targets.push({
        what: `${what}: time`,
        target: '<= 5 s',
        measured: `${(row.total_ms / 1000).toFixed(2)} s (${source === 'disk' ? 'reading + parsing' : 'building data'} ${(row.data_ms / 1000).toFixed(2)} s; process ${(row.process_wall_ms / 1000).toFixed(2)} s)`,
        met: row.total_ms <= 5000,
      });
      targets.push({
        what: `${what}: peak memory`,
        target: '< 1 GiB',
        measured: `${Math.round(row.max_rss_mib)} MiB RSS`,
        met: row.max_rss_mib < 1024,
      });
    }
  }
  fs.rmSync(runDir, { recursive: true, force: true });
  return { result: { run_dir_bytes: bytes, run_dir_generate_s: round(generateS), cases: rows }, targets };
}
