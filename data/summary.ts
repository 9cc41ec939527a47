// What `data shard` prints: counts per rank and split, bytes when known, and the positives' balance.
import type { Split } from './assign';
import type { ShardManifest } from './manifest';

function bytes(n: number | undefined): string {
  if (n === undefined) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let u = 0;
  for (let v = n; v >= 1024 && u < units.length - 1; v /= 1024) u++;
  return u === 0 ? `${n} B` : `${(n / 1024 ** u).toFixed(1)} ${units[u]}`;
}

function balanceLine(m: ShardManifest, split: Split): string {
  const b = m.balance[split];
  const head = `${split} positives per rank ${b.min}..${b.max} (fair ${b.fair.toFixed(2)})`;
  if (b.max - b.min <= 1) return `${head}: within one of fair`;
  if (b.exactImpossible)
    return `${head}: one series holds ${b.largestSeries} positives, more than a fair share, so no split is within one`;
  return `${head}: max - min ${b.max - b.min} <= ${b.bound} (bound when ${b.singleSeries} single-positive series < (ranks - 1) x (${b.largestSeries} - 1))`;
}

export function formatShardSummary(m: ShardManifest, outDir: string): string {
  const c = m.inputs.candidates;
  const lines = [
    `sharded ${c.rows} candidates (${c.positives ?? 0} positive) in ${c.series} series over ${m.world_size} rank(s), ` +
      `seed ${m.seed}, validation fraction ${m.val_fraction}`,
  ];
  const known = m.data !== undefined;
  const cells = (rows: number, positives: number, series: number) => [rows, positives, series].map(String);
  const rows = [
    ['rank', 'train rows', 'pos', 'series', 'val rows', 'pos', 'series'],
    ...m.ranks.map((r) => [
      String(r.rank),
      ...cells(r.train.rows, r.train.positives, r.train.series.length),
      ...cells(r.val.rows, r.val.positives, r.val.series.length),
      ...(known ? [bytes(r.train.data_bytes), bytes(r.val.data_bytes)] : []),
    ]),
  ];
  if (known) rows[0].push('train bytes', 'val bytes');
  const t = m.totals;
  rows.push([
    'all',
    ...cells(t.train.rows, t.train.positives, t.train.series),
    ...cells(t.val.rows, t.val.positives, t.val.series),
  ]);
  const width = rows[0].map((_, k) => Math.max(...rows.map((r) => (r[k] ?? '').length)));
  for (const r of rows)
    lines.push('  ' + r.map((v, k) => (k === 0 ? v.padEnd(width[k]) : v.padStart(width[k]))).join('  '));
  lines.push(`  train rows per rank ${m.balance.train.rows_min}..${m.balance.train.rows_max}`);
  lines.push('  ' + balanceLine(m, 'train'));
  lines.push('  ' + balanceLine(m, 'val'));
  const a = m.inputs.annotations;
  if (a)
    lines.push(
      `  annotations: ${a.rows} rows${a.unmatched_rows ? `, ${a.unmatched_rows} of series not in ${c.name} (left out)` : ''}`,
    );
  if (m.data)
    lines.push(
      `  data: ${bytes(m.data.bytes)} in ${m.data.dir}${m.data.series_without_files ? `; ${m.data.series_without_files} series without files` : ''}`,
    );
  lines.push(
    `wrote ${outDir}/rank-<R>.{train,val}${a ? '[.annotations]' : ''}.csv${m.data ? `, ${outDir}/rank-<R>.data-files.txt` : ''} and ${outDir}/manifest.json`,
  );
  return lines.join('\n');
}
