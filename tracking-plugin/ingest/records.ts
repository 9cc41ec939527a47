// Spool records: one JSON array per line, [key, value, step, timestamp ms]; NaN and ±Infinity as
// MLflow's strings. Decoding stops at a torn last line (cut back on the next start anyway).
import { readRange, SPOOL_RECORD, TrackLaunchError, validated } from '../../core';
import { PointColumns } from '../logs/columns';
import { fromWire, toWire } from '../mlflow/values';
import type { MetricPoint } from '../types';

/** The records of points (objects, or columns as extractPoints fills them). */
export function encodeRecords(points: readonly MetricPoint[] | PointColumns): string {
  return encodeColumns(points instanceof PointColumns ? points : PointColumns.from(points));
}

/** What JSON.stringify of each point's array gives, joined from parts: each key quoted once per
 *  call, and a number is its JSON text (String() for a finite one, as JSON.stringify writes it). */
function encodeColumns(c: PointColumns): string {
  const quoted: string[] = [];
  let out = '';
  for (let i = 0; i < c.length; i++) {
    const id = c.keyIds[i];
    const key = (quoted[id] ??= JSON.stringify(c.keys[id]));
    const wire = toWire(c.values[i]);
    out += `[${key},${typeof wire === 'string' ? `"${wire}"` : num(wire)},${num(c.steps[i])},${num(c.timestamps[i])}]\n`;
  }
  return out;
}

const num = (x: number): string => (Number.isFinite(x) ? String(x) : JSON.stringify(x));

export interface DecodedRecord {
  point: MetricPoint;
  /** Byte offset just past this record, relative to the spool start. */
  end: number;
}

/** The complete records of `buf` (spool bytes from offset `base` of `file`); a record that is not
 *  JSON of SPOOL_RECORD's shape is a RUN_DIR error naming the file and the offset. */
export function decodeRecords(buf: Buffer, base: number, file = 'spool'): DecodedRecord[] {
  const out: DecodedRecord[] = [];
  let start = 0;
  for (;;) {
    const nl = buf.indexOf(0x0a, start);
    if (nl < 0) break;
    const at = `${file} (the record at byte ${base + start})`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(buf.toString('utf8', start, nl));
    } catch (e) {
      throw new TrackLaunchError('RUN_DIR', `${at} is not valid JSON (${(e as Error).message})`, {
        hint: DAMAGED,
        details: { file },
      });
    }
    const [key, value, step, timestamp] = validated<[string, unknown, number, number]>(
      at,
      parsed,
      SPOOL_RECORD,
      DAMAGED,
    );
    out.push({ point: { key, value: fromWire(value), step, timestamp }, end: base + nl + 1 });
    start = nl + 1;
  }
  return out;
}

const DAMAGED = 'move the tracking/ directory away to start ingestion over';

/** Spool bytes read at a time. */
const WINDOW = 4 << 20;

/** The records of a spool's bytes [from, size), one bounded read of them: at least one. */
export async function readRecords(runDir: string, file: string, from: number, size: number) {
  const recs = decodeRecords(await readRange(runDir, file, from, Math.min(WINDOW, size - from)), from, file);
  if (recs.length) return recs;
  throw new TrackLaunchError('RUN_DIR', `${file} has a record longer than ${WINDOW} bytes at ${from}`, {
    hint: DAMAGED,
  });
}
