// `list` as a table for people (pure).
import * as path from 'path';
import type { JobRow } from './row';

const HEADER = ['JOB', 'NAME', 'STATE', 'NODES', 'STARTED', 'RUN DIR', 'MLFLOW'];

/** Local time to the minute, the way squeue shows times: 2026-03-04 12:30. */
export function formatStarted(unixS: number | null): string {
  if (unixS === null) return '-';
  const d = new Date(unixS * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** A run directory below the current directory is shown relative to it (shorter, still usable). */
export function shownDir(runDir: string, cwd: string): string {
  const rel = path.relative(cwd, runDir);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : runDir;
}

const cells = (r: JobRow, cwd: string): string[] => [
  r.job_id,
  r.name ?? '-',
  r.state === 'GONE'
    ? 'GONE (run dir removed)'
    : r.problem
      ? `${r.state} (${r.problem})`
      : r.untracked
        ? `${r.state} (untracked: track-launch ingest --follow ${r.job_id})`
        : r.state,
  r.nodes === null ? '-' : r.nodelist ? `${r.nodes} ${r.nodelist}` : String(r.nodes),
  formatStarted(r.started_at),
  shownDir(r.run_dir, cwd),
  r.mlflow_url ?? '-',
];

/** Columns padded to their widest cell; the last column is not padded. */
export function formatJobTable(rows: readonly JobRow[], cwd: string): string {
  if (rows.length === 0) return 'No jobs recorded yet (submit one with `track-launch submit`).';
  const table = [HEADER, ...rows.map((r) => cells(r, cwd))];
  const widths = HEADER.map((_, c) => Math.max(...table.map((row) => row[c].length)));
  return table
    .map((row) => row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]))).join('  '))
    .join('\n');
}
