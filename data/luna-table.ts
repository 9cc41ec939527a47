// LUNA16's candidates.csv and annotations.csv, checked (extra columns kept): a missing column, a wrong type,
// a repeated row or a wrong number of fields is an error naming the file and line.
import { CoordSet } from './coord-set';
import { csvError, forEachCsvRecord } from './csv';

export const CANDIDATE_COLUMNS = ['seriesuid', 'coordX', 'coordY', 'coordZ', 'class'] as const;
export const ANNOTATION_COLUMNS = ['seriesuid', 'coordX', 'coordY', 'coordZ', 'diameter_mm'] as const;

/** Rows as they were read: raw text (written to the shards unchanged) and the series of each row. */
export interface LunaTable {
  file: string;
  /** The header line's raw text. */
  header: string;
  columns: string[];
  /** Each data row's raw text, without its line ending, in input order. */
  rows: string[];
  /** The line each row starts on. */
  lines: Int32Array;
  /** Index into seriesIds, per row. */
  seriesOfRow: Int32Array;
  /** Series uids (trimmed), in order of first appearance. */
  seriesIds: string[];
  /** candidates.csv: 1 where class is 1. annotations.csv: all 0. */
  positive: Uint8Array;
}

const NUMBER = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/;
const CLASS = /^\s*([01])(?:\.0*)?\s*$/;

// Globals cached: a hot loop's global lookups are slow under a vm context (jest).
const toNumber = Number;
const isFiniteNumber = Number.isFinite;
const NO_MIN = -Number.MAX_VALUE;

function num(file: string, line: number, column: string, value: string, min = NO_MIN): number {
  const v = NUMBER.test(value) ? toNumber(value) : -1 / 0;
  if (!isFiniteNumber(v) || v < min) {
    const want = min === 0 ? 'a number >= 0' : 'a number';
    throw csvError(file, line, `${column} ${JSON.stringify(value)} is not ${want}`, { column, value });
  }
  return v;
}

export function parseCandidates(text: string, file = 'candidates.csv'): LunaTable {
  return parseLuna(text, file, 'candidates');
}

export function parseAnnotations(text: string, file = 'annotations.csv'): LunaTable {
  return parseLuna(text, file, 'annotations');
}

function parseLuna(text: string, file: string, kind: 'candidates' | 'annotations'): LunaTable {
  const required = kind === 'candidates' ? CANDIDATE_COLUMNS : ANNOTATION_COLUMNS;
  let header: string | undefined;
  let columns: string[] = [];
  let idx: number[] = [];
  const rows: string[] = [];
  const lines: number[] = [];
  const series: number[] = [];
  const positive: number[] = [];
  const seriesIds: string[] = [];
  const seriesIndex = new Map<string, number>();
  const seen = new CoordSet(); // series + coordinates -> earlier row
  let lastUid = '';
  let lastSeries = -1;
  forEachCsvRecord(text, file, (fields, line, start, end) => {
    if (header === undefined) {
      header = text.slice(start, end);
      columns = fields.map((f) => f.trim());
      const dup = columns.find((c, k) => columns.indexOf(c) !== k);
      if (dup !== undefined)
        throw csvError(file, line, `the header names column ${JSON.stringify(dup)} twice`);
      const missing = required.filter((c) => !columns.includes(c));
      if (missing.length) {
        throw csvError(
          file,
          line,
          `missing column(s) ${missing.join(', ')}; the header has ${columns.map((c) => JSON.stringify(c)).join(', ')}, ` +
            `LUNA16 ${kind}.csv has ${required.join(',')}`,
          { missing },
        );
      }
      idx = required.map((c) => columns.indexOf(c));
      return;
    }
    if (fields.length !== columns.length) {
      throw csvError(
        file,
        line,
        `${fields.length} field(s), but the header has ${columns.length} (${columns.join(',')})`,
      );
    }
    const uid = fields[idx[0]].trim();
    if (uid === '') throw csvError(file, line, 'seriesuid is empty', { column: 'seriesuid' });
    const x = num(file, line, required[1], fields[idx[1]]);
    const y = num(file, line, required[2], fields[idx[2]]);
    const z = num(file, line, required[3], fields[idx[3]]);
    let cls = 0;
    if (kind === 'candidates') {
      const v = fields[idx[4]];
      const m = v === '0' || v === '1' ? [v, v] : CLASS.exec(v);
      if (!m)
        throw csvError(file, line, `class ${JSON.stringify(fields[idx[4]])} is not 0 or 1`, {
          column: 'class',
          value: fields[idx[4]],
        });
      cls = m[1] === '1' ? 1 : 0;
    } else {
      num(file, line, 'diameter_mm', fields[idx[4]], 0);
    }
    let s = uid === lastUid ? lastSeries : seriesIndex.get(uid);
    if (s === undefined) {
      s = seriesIds.length;
      seriesIds.push(uid);
      seriesIndex.set(uid, s);
    }
    lastUid = uid;
    lastSeries = s;
    const before = seen.add(s, x, y, z);
    if (before >= 0) {
      const other =
        kind === 'candidates' && positive[before] !== cls
          ? ` (with a different class: ${positive[before]} there, ${cls} here)`
          : '';
      const message = `duplicate row: the same seriesuid and coordinates as line ${lines[before]}${other}`;
      throw csvError(file, line, message, { duplicate_of_line: lines[before] });
    }
    rows.push(text.slice(start, end));
    lines.push(line);
    series.push(s);
    positive.push(cls);
  });
  if (header === undefined)
    throw csvError(file, 1, `the file is empty; want a header line ${required.join(',')}`);
  return {
    file,
    header,
    columns,
    rows,
    lines: Int32Array.from(lines),
    seriesOfRow: Int32Array.from(series),
    seriesIds,
    positive: Uint8Array.from(positive),
  };
}
