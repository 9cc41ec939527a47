// 5. Reports: 64 ranks x 100,000 points (reports/synthetic.ts), PDF and PNG, each in a fresh process:
// time (building the columns, then chart specs + drawing + writing) and peak RSS (getrusage).
import * as fs from 'fs';
import * as path from 'path';
import { BenchOptions, log, machine, median, round, ROOT, runProc, Target } from './common';

export async function benchReports(o: BenchOptions): Promise<{ result: unknown; targets: Target[] }> {
  const reps = o.quick ? 1 : 3;
  const child = path.join(ROOT, 'dist', 'bench', 'report-child.js');
  const rows: Record<string, unknown>[] = [];
  const targets: Target[] = [];
  for (const fmt of ['pdf', 'png', 'pdf,png']) {
    const runs: {
      data_ms: number;
      render_ms: number;
      total_ms: number;
      max_rss_mib: number;
      wall_ms: number;
    }[] = [];
    for (let i = 0; i < reps; i++) {
      const out = path.join(o.tmp, `report-${fmt.replace(',', '-')}-${i}`);
      const r = await runProc(process.execPath, [child, out, fmt, '64', '100000'], { timeoutMs: 300_000 });
      if (r.code !== 0) throw new Error(`report-child ${fmt} exited ${r.code}: ${r.stderr.slice(-1000)}`);
      runs.push({ ...JSON.parse(r.stdout.trim()), wall_ms: r.ms });
      fs.rmSync(out, { recursive: true, force: true });
      log(`reports ${fmt}: ${JSON.stringify(runs[runs.length - 1])} (load ${machine().loadavg})`);
    }
    const m = (k: keyof (typeof runs)[0]) => round(median(runs.map((x) => x[k])));
    const row = {
      formats: fmt,
      ranks: 64,
      points: 100_000,
      reps,
      total_ms: m('total_ms'),
      data_ms: m('data_ms'),
      render_ms: m('render_ms'),
      process_wall_ms: m('wall_ms'),
      max_rss_mib: round(Math.max(...runs.map((x) => x.max_rss_mib))),
      runs,
    };
    rows.push(row);
    targets.push({
      what: `report 64 x 100k, ${fmt.toUpperCase()}: time`,
      target: '<= 5 s',
      measured: `${(row.total_ms / 1000).toFixed(2)} s (process ${(row.process_wall_ms / 1000).toFixed(2)} s)`,
      met: row.total_ms <= 5000,
    });
    targets.push({
      what: `report 64 x 100k, ${fmt.toUpperCase()}: peak memory`,
      target: '< 1 GiB',
      measured: `${Math.round(row.max_rss_mib)} MiB RSS`,
      met: row.max_rss_mib < 1024,
    });
  }
  return { result: { cases: rows }, targets };
}
