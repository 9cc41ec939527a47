// Child process of bench/reports.ts: renders one report and prints its own timings and peak resident
// memory (getrusage maxrss), so each measurement starts from a fresh process. The data is either
// synthetic (built in memory) or read from a run directory on disk (logs/rank-R.out and .out.ts parsed,
// as `track-launch report` does).
// usage: node dist/bench/report-child.js OUT_DIR FORMATS RANKS POINTS [RUN_DIR]
import { loadReportData, reportFigures } from '../reports';
import { syntheticReportData } from './synthetic-report';
import { writeReport, type ReportFormat } from '../reports/report';

async function main(): Promise<void> {
  const [out, formats, ranks, points, runDir] = process.argv.slice(2);
  const t0 = performance.now();
  const data = runDir
    ? await loadReportData(runDir)
    : syntheticReportData({ ranks: Number(ranks), points: Number(points) });
  const t1 = performance.now();
  const { figures } = reportFigures(data);
  const files = writeReport(figures, out, formats.split(',') as ReportFormat[], 'report.pdf');
  const t2 = performance.now();
  process.stdout.write(
    JSON.stringify({
      data_ms: t1 - t0,
      render_ms: t2 - t1,
      total_ms: t2 - t0,
      max_rss_mib: process.resourceUsage().maxRSS / 1024,
      files: files.length,
      points: data.metrics.reduce((n, m) => n + m.steps.length, 0),
    }) + '\n',
  );
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
});
