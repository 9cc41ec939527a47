// Naming the straggler under DDP: every rank steps at the slowest one's pace, so step times agree; the
// CPU seconds each rank's command used (logs/rank-R.json's cpu_s) can still single out a rank that
// computes more. Data: 3 ranks on 3 hosts whose line times are made identical (as under DDP), with
// CPU seconds set per case; expected ratios are worked out here from those numbers.
import { syntheticReportData } from '../../../bench/synthetic-report';
import type { ReportData } from '../../../reports/model';
import { cpuStats, findStraggler, stragglerStats } from '../../../reports/stats/stragglers';
import { stragglersFigure } from '../../../reports/specs/stragglers';
import { summaryRows } from '../../../reports/specs/summary';

/** 3 ranks logging at one pace; rank r's facts get cpu[r] (undefined: none). */
function ddpRun(cpu: (number | undefined)[]): ReportData {
  const d = syntheticReportData({ ranks: 3, points: 100, ranksPerHost: 1 });
  for (const s of d.metrics) s.times = d.metrics[0].times.slice();
  d.facts.forEach((f, r) => {
    if (cpu[r] === undefined) delete f.cpu_s;
    else f.cpu_s = cpu[r];
  });
  return d;
}
const slowestRow = (d: ReportData) => Object.fromEntries(summaryRows(d))['Slowest rank'];

test('cpuStats: each measured rank against the median rank, ranks without cpu_s left out', () => {
  const d = ddpRun([2, 8.8, undefined]);
  // median of [2, 8.8] is 5.4
  expect(cpuStats(d.facts)).toEqual([
    { rank: 0, host: 'node001', cpu: 2, relative: 2 / 5.4 },
    { rank: 1, host: 'node002', cpu: 8.8, relative: 8.8 / 5.4 },
  ]);
});

test('a rank that computed 4x the others is named by CPU time, on the summary and the page', () => {
  const d = ddpRun([2, 8.8, 2.2]);
  const stats = stragglerStats(d.metrics.filter((m) => m.key === 'loss'));
  expect(findStraggler(stats, cpuStats(d.facts))).toMatchObject({ by: 'cpu', rank: { rank: 1 } });
  // 8.8 / median(2, 2.2, 8.8) = 8.8 / 2.2 = 4.00
  expect(slowestRow(d)).toBe(
    "rank 1 (node002) by CPU time: 8.8 s, 4.00x the median rank's (step times cannot show it: under DDP every rank steps at the slowest one's pace)",
  );
  const titles = stragglersFigure(d.metrics, 'loss', stats, cpuStats(d.facts)).panels.map((p) =>
    p.kind === 'chart' ? (p.config.options?.plugins?.title?.text as string) : p.title,
  );
  expect(titles).toContain("CPU seconds by rank: rank 1 used 4.0x the median rank's");
});

test('ranks within 50 % of the median CPU time: none named, and the summary says why', () => {
  // 2.9 / 2.0 = 1.45: under the 1.5 threshold
  const d = ddpRun([2, 2.9, 1.9]);
  expect(slowestRow(d)).toBe(
    "none stands out in step time (every rank within 5 % of the median rank's; under DDP every rank steps at the slowest one's pace) or CPU time (within 50 %; a rank slowed by waiting, e.g. on I/O, uses no more CPU)",
  );
  const titles = stragglersFigure(d.metrics, 'loss', undefined, cpuStats(d.facts)).panels.map((p) =>
    p.kind === 'chart' ? (p.config.options?.plugins?.title?.text as string) : p.title,
  );
  expect(titles).toContain("CPU seconds by rank: none over 1.5x the median rank's");
});

test('no CPU time recorded (a running job): the summary says so, and the page has no CPU panel', () => {
  const d = ddpRun([undefined, undefined, undefined]);
  expect(slowestRow(d)).toMatch(/^none stands out in step time .* and no CPU time per rank is recorded yet/);
  expect(stragglersFigure(d.metrics, 'loss', undefined, cpuStats(d.facts)).panels).toHaveLength(3);
});

test('a rank slower in step time is named by step time even when another used more CPU', () => {
  const d = ddpRun([2, 8.8, 2.2]);
  const t = d.metrics[2].times;
  for (let i = 1; i < t.length; i++) t[i] = t[0] + (t[i] - t[0]) * 1.5; // rank 2: 50 % slower steps
  expect(findStraggler(stragglerStats(d.metrics), cpuStats(d.facts))).toMatchObject({
    by: 'step',
    rank: { rank: 2 },
  });
});
