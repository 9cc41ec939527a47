// Spool records: one JSON array per line, [key, value, step, timestamp ms]; NaN and ±Infinity as
// MLflow's strings. Decoding stops at a torn last line (cut back on the next start anyway).
import { fromWire, toWire } from '../mlflow/values';
import type { MetricPoint } from '../types';

export function encodeRecords(points: readonly MetricPoint[]): string {
  let out = '';
  for (const p of points) out += JSON.stringify([p.key, toWire(p.value), p.step, p.timestamp]) + '\n';
  return out;
}

export interface DecodedRecord {
  point: MetricPoint;
  /** Byte offset just past this record, relative to the spool start. */
  end: number;
}

export function decodeRecords(buf: Buffer, base: number): DecodedRecord[] {
  const out: DecodedRecord[] = [];
  let start = 0;
  for (;;) {
    const nl = buf.indexOf(0x0a, start);
    if (nl < 0) break;
    const [key, value, step, timestamp] = JSON.parse(buf.toString('utf8', start, nl)) as [
      string,
      unknown,
      number,
      number,
    ];
    out.push({ point: { key, value: fromWire(value), step, timestamp }, end: base + nl + 1 });
    start = nl + 1;
  }
  return out;
}
