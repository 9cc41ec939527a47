// The jsonl protocol: one line of JSON per logged step, for users' own scripts (docs/tracking.md):
//   {"track_launch": 1, "step": 10, "metrics": {"loss": 0.25, "acc": 0.9}}
// Python's json.dumps writes NaN / Infinity / -Infinity bare; they are accepted, as are the strings.
import { word, wordOf } from './bytes';
import { numberOfBytes, parseStep, scanNumber, scanned } from './number';
import { emit, lineParser } from './out';
import type { MetricsOut } from './types';

function toValue(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Python's non-standard literals; quoting them may touch a string value, which is then still a string.
    try {
      return JSON.parse(text.replace(/(?<=[:,[]\s*)(-?Infinity|NaN)(?=\s*[,}\]])/g, '"$1"'));
    } catch {
      return undefined; // not a protocol line; the caller counts it as skipped
    }
  }
}

function parseInto(line: string, out: MetricsOut): void {
  const t = line.trim();
  if (!t.startsWith('{') || !t.includes('track_launch')) return;
  const obj = parseJson(t);
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return;
  const rec = obj as Record<string, unknown>;
  if (rec.track_launch !== 1) return;
  const m = rec.metrics;
  if (!m || typeof m !== 'object' || Array.isArray(m)) return;
  const step = typeof rec.step === 'number' ? parseStep(rec.step) : undefined;
  if (rec.step !== undefined && step === undefined) return;
  const metrics = m as Record<string, unknown>;
  const keys = Object.keys(metrics); // Object.entries' order, without its pairs
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const value = toValue(metrics[key]);
    if (value === undefined || key.length === 0) continue; // a long key: the sender maps it
    emit(out, key, value, step);
  }
}

const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const BRACE = 0x7d;
/** Keys a line may have on the path below: each key is checked against the ones before it, so a
 *  line of more goes to JSON.parse. */
const FAST_KEYS = 64;
/** The keys of the line being read. */
const keys: string[] = [];

// The line as json.dumps or JSON.stringify writes it, read from its bytes without JSON.parse, where its
// keys are ASCII: these keys in this order, numbers only, no escapes, no white space but a space after
// , and :. It gives what JSON.parse gives: the same values (both round correctly), the keys in their
// order. The key last read at each position is kept with its bytes: a line with the previous line's
// keys makes no string.
const lastByteKeys: string[] = [];
const lastKeyBytes: Buffer[] = [];
const TRACK = wordOf('{"track_');
const LAUNCH = wordOf('launch":');
const STEP = wordOf('"step":');
const METR = wordOf('"metr');
const ICS = wordOf('ics":');

const space = (b: Uint8Array, i: number): number => (b[i] === SPACE ? i + 1 : i);

/** parseInto for bytes[from, to): one pass checks the form above (without leading or trailing white
 *  space) and reads the keys and values. False, with out.n unchanged, where the line is not in
 *  that form, a key is not plain ASCII, or JSON.parse must decide. Bytes are read up to the closing
 *  braces before `to` is checked (a line ends in \n or \r, which no part before them takes, or at
 *  the buffer's end, where reads give undefined). */
function parseBytes(b: Uint8Array, from: number, to: number, out: MetricsOut): boolean {
  let i = word(b, from, TRACK);
  if (i < 0) return false;
  i = word(b, i, LAUNCH);
  if (i < 0) return false;
  i = space(b, i);
  if (b[i] !== 0x31 || b[i + 1] !== COMMA) return false;
  i = space(b, i + 2);
  let step: number | undefined;
  const st = word(b, i, STEP);
  if (st >= 0) {
    i = space(b, st);
    const s0 = i;
    let c = b[i];
    step = 0;
    for (; c >= 0x30 && c <= 0x39; c = b[++i]) step = step * 10 + (c - 0x30);
    if (i === s0 || i - s0 > 15 || (i - s0 > 1 && b[s0] === 0x30) || c !== COMMA) return false;
    i = space(b, i + 1);
  }
  i = word(b, i, METR);
  if (i < 0) return false;
  i = word(b, i, ICS);
  if (i < 0) return false;
  i = space(b, i);
  if (b[i] !== 0x7b) return false;
  i++;
  // the metrics go into out as they are read, counted in out.n once the whole line is known
  const o = out.n;
  let m = 0;
  for (let n = 0; b[i] === QUOTE; n++) {
    if (n === FAST_KEYS) return false;
    const a = i + 1; // "key": number
    if (b[a] >= 0x30 && b[a] <= 0x39) return false; // a digit: maybe an array index, listed first
    const key = keyOf(b, a, n);
    if (key === undefined) return false;
    i = keyStop;
    for (let j = 0; j < n; j++) if (keys[j] === key) return false; // twice: the last value, first place
    keys[n] = key;
    if (b[i + 1] !== 0x3a) return false;
    const v = space(b, i + 2);
    let value = scanNumber(b, v);
    i = scanned.end;
    if (i < 0 || leadingZero(b, v)) return false;
    if (value !== value) value = numberOfBytes(b, v, i); // NaN: Number() decides
    if (key.length > 0) {
      out.keys[o + m] = key;
      out.values[o + m] = value;
      out.steps[o + m++] = step;
    }
    if (b[i] !== COMMA) break;
    i = space(b, i + 1);
    if (b[i] !== QUOTE) return false;
  }
  if (b[i] !== BRACE || b[i + 1] !== BRACE || i + 2 !== to) return false;
  out.n = o + m;
  return true;
}

/** Where the key keyOf read last ends (its closing quote). */
let keyStop = 0;

/** The key whose bytes start at a, up to its closing quote: the last line's n-th key where it has
 *  the same bytes (compared as they are read: no new string); undefined where it is not printable
 *  ASCII without \ (the string path reads those), or runs past the buffer. */
function keyOf(b: Uint8Array, a: number, n: number): string | undefined {
  const last = lastKeyBytes[n];
  let same = last !== undefined;
  let i = a;
  for (let c = b[i]; c !== QUOTE; c = b[++i]) {
    if (c < 0x20 || c === 0x5c || !(c < 0x80)) return undefined;
    if (same && last[i - a] !== c) same = false;
  }
  keyStop = i;
  if (same && last.length === i - a) return lastByteKeys[n];
  const own = Buffer.from(b.subarray(a, i)); // a copy, and a string of its own
  const key = own.toString('latin1');
  lastByteKeys[n] = key;
  lastKeyBytes[n] = own;
  return key;
}

/** A number with a leading zero before another digit (01, -01), which JSON does not allow. */
function leadingZero(b: Uint8Array, v: number): boolean {
  const d = b[v] === 0x2d ? v + 1 : v;
  return b[d] === 0x30 && b[d + 1] >= 0x30 && b[d + 1] <= 0x39;
}

export const jsonlParser = lineParser('jsonl', parseInto, parseBytes);
