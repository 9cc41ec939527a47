// Child process of bench/reports.ts: renders the synthetic report once and prints its own timings and
// peak resident memory (getrusage maxrss), so each measurement starts from a fresh process.
// usage: node dist/bench/report-child.js OUT_DIR FORMATS RANKS POINTS
import { reportFigures } from '../reports';
import { syntheticReportData } from './synthetic-report';
import { writeReport, type ReportFormat } from '../reports/report';

const [out, formats, ranks, points] = process.argv.slice(2);
const t0 = performance.now();
const data = syntheticReportData({ ranks: Number(ranks), points: Number(points) });
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
  }) + '\n',
);
