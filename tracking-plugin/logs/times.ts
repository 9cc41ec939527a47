// Each line's time, from the node that wrote it (logs/rank-R.out.ts), never from the file server's
// clock: a line .out.ts has no valid time for takes the time of the rank's line before it, else the
// rank's start (logs/rank-R.json started_at), else ingestion's own clock. Ingestion keeps the last
// time in its cursor, so a restart stamps the next line as a reading of the whole log does.
import { readRankFacts } from '../../core';
import type { LineBatch } from './lines';

const TS = /^\s*(\d{1,12})(?:\.(\d{1,9}))?\s*$/;

/** A line of logs/rank-R.out.ts, `1764669000.123456` (Unix seconds, microseconds), to ms since the
 *  epoch, exactly (no float error); undefined where it holds no time. */
export function tsToMs(line: string): number | undefined {
  const m = TS.exec(line);
  if (!m) return undefined;
  return Number(m[1]) * 1000 + Number(((m[2] ?? '') + '000').slice(0, 3));
}

/** The times of the first `take` lines: line i's is .out.ts line `skip + i` when it holds a time,
 *  else the time before it, starting from `last`. */
export function lineTimes(ts: LineBatch, skip: number, take: number, last: number): number[] {
  const times: number[] = [];
  const buf = ts.buffer;
  for (let i = 0; i < take; i++) {
    const j = skip + i;
    let t: number | undefined;
    if (j < ts.length) {
      // the usual form read from its bytes; anything else (or a line not in the buffer) by tsToMs
      const a = ts.byteStart(j);
      t = a >= 0 ? tsBytesToMs(buf, a, ts.byteStop(j)) : -1;
      if (t < 0) t = tsToMs(ts.text(j));
    }
    if (t !== undefined) last = t;
    times.push(last);
  }
  return times;
}

/** tsToMs's usual form (1-12 digits, a point, 1-9 digits, nothing else) in bytes[a, b): its ms, or -1
 *  for any other line (tsToMs decides those). */
function tsBytesToMs(s: Uint8Array, a: number, b: number): number {
  let i = a;
  let sec = 0;
  for (let c = s[i]; i < b && c >= 0x30 && c <= 0x39; c = s[++i]) sec = sec * 10 + (c - 0x30);
  if (i === a || i - a > 12 || i === b || s[i] !== 0x2e) return -1;
  const f = ++i;
  let ms = 0;
  for (let c = s[i]; i < b && c >= 0x30 && c <= 0x39; c = s[++i]) if (i - f < 3) ms = ms * 10 + (c - 0x30);
  if (i === f || i - f > 9 || i !== b) return -1;
  for (let k = i - f; k < 3; k++) ms *= 10; // .5 is 500 ms
  return sec * 1000 + ms;
}

/** The time of a rank's lines before any line time is known: its start, else ingestion's clock. */
export function firstFallback(runDir: string, rank: number, now: number): number {
  const started = readRankFacts(runDir, rank)?.started_at;
  return typeof started === 'number' && Number.isFinite(started) ? Math.round(started * 1000) : now;
}
