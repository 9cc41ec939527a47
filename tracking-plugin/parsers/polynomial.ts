// The seed's polynomial example: `epoch 100, loss = 0.154, rank 0/3 (cpuamdg10001).`
// Also accepts `loss = tensor(0.154, grad_fn=...)`, which the script prints without .item().
import { word, wordOf } from './bytes';
import { NUMBER_SOURCE, numberIn, numberInBytes, numberOf } from './number';
import { emit, parseVia } from './out';
import type { LineParser, LineTexts, MetricsOut, ParsedLine } from './types';

const LINE = new RegExp(
  String.raw`\bepoch\s+(\d{1,15}),\s*loss\s*=\s*(?:tensor\(\s*)?(${NUMBER_SOURCE})` +
    String.raw`(?:,\s*(?:grad_fn|device|dtype|requires_grad)=[^,)]{0,200})*\s*\)?` +
    String.raw`(?:,\s*rank\s+\d+\s*/\s*\d+\s*\(([^()\s]{1,255})\))?`,
  'i',
);

// The line as the example prints it, from its first character. There LINE matches (nothing can
// start before), with these groups: its number is greedy and ends at the comma, the optional
// grad_fn=... part cannot start at `, rank`, and the host is the run of [^()\s] before `)`. A test
// is cheaper than LINE's match and its substrings; the groups are then found with indexOf.
const USUAL = /^epoch \d{1,15}, loss = -?\d+(?:\.\d+)?(?:e-?\d+)?, rank \d+\/\d+ \([^()\s]{1,255}\)/;

function parseInto(line: string, out: MetricsOut): void {
  if (USUAL.test(line)) {
    const comma = line.indexOf(',', 6);
    let step = 0;
    for (let i = 6; i < comma; i++) step = step * 10 + (line.charCodeAt(i) - 0x30);
    const v = comma + ', loss = '.length;
    const ve = line.indexOf(',', v);
    const h = line.indexOf('(', ve) + 1;
    emit(out, 'loss', numberIn(line, v, ve), step);
    out.host = line.slice(h, line.indexOf(')', h));
    return;
  }
  if (line.length > 4096 && !line.includes('epoch')) return;
  const m = LINE.exec(line);
  if (!m) return;
  // \d{1,15} is a safe integer; m[2] is a whole number as NUMBER_SOURCE matches it
  emit(out, 'loss', numberOf(m[2]), Number(m[1]));
  if (m[3]) out.host = m[3];
}

// Hosts seen, strings of their own, by a hash of their bytes: most lines repeat one (a log
// interleaving many ranks names a few), and then no string is made for them and one compare finds it.
const HOST_SLOTS = 64;
const hostCache: (string | undefined)[] = new Array<string | undefined>(HOST_SLOTS).fill(undefined);
const hostBytes: Buffer[] = new Array<Buffer>(HOST_SLOTS).fill(Buffer.alloc(0)); // their bytes, to compare

const EPOCH = wordOf('epoch ');
const LOSS = wordOf(', loss = ');
const RANK = wordOf(', rank ');

/** Where a run of digits starting at i ends (i itself: none). */
function digits(b: Uint8Array, i: number, to: number): number {
  for (let c = b[i]; i < to && c >= 0x30 && c <= 0x39; c = b[++i]);
  return i;
}

/** USUAL on the line's bytes, by hand (a regex needs a string): what parseInto's fast path emits, or
 *  false where it would not take it, or the host has a byte a string check must judge (non-ASCII:
 *  \s knows more than ASCII white space). */
function parseBytes(
  b: Uint8Array,
  from: number,
  to: number,
  out: MetricsOut,
  texts: LineTexts,
  line: number,
): boolean {
  let i = word(b, from, EPOCH);
  if (i < 0) return false;
  const s0 = i;
  let step = 0;
  for (let c = b[i]; i < to && c >= 0x30 && c <= 0x39; c = b[++i]) step = step * 10 + (c - 0x30);
  if (i === s0 || i - s0 > 15) return false;
  i = word(b, i, LOSS);
  if (i < 0) return false;
  const v = i;
  if (b[i] === 0x2d) i++; // -?\d+(?:\.\d+)?(?:e-?\d+)?
  let j = digits(b, i, to);
  if (j === i) return false;
  if (b[j] === 0x2e) {
    i = digits(b, j + 1, to);
    if (i === j + 1) return false;
    j = i;
  }
  if (b[j] === 0x65) {
    i = b[j + 1] === 0x2d ? j + 2 : j + 1;
    j = digits(b, i, to);
    if (j === i) return false;
  }
  const ve = j;
  i = word(b, j, RANK); // , rank \d+\/\d+ \(
  if (i < 0) return false;
  j = digits(b, i, to);
  if (j === i || b[j] !== 0x2f) return false;
  i = digits(b, j + 1, to);
  if (i === j + 1 || b[i] !== 0x20 || b[i + 1] !== 0x28) return false;
  const h = i + 2; // [^()\s]{1,255}\)
  let he = h;
  let hash = 0;
  for (let c = b[he]; he < to && c !== 0x29; c = b[++he]) {
    if (c === 0x28 || c === 0x20 || (c >= 0x09 && c <= 0x0d) || c >= 0x80) return false;
    hash = (hash * 31 + c) | 0;
  }
  if (he === to || he === h || he - h > 255) return false;
  emit(out, 'loss', numberInBytes(b, v, ve, texts, line, from), step);
  out.host = hostOf(b, h, he, hash & (HOST_SLOTS - 1));
  return true;
}

/** The host in bytes[h, he) (ASCII), from the cache where it is there (no new string). */
function hostOf(b: Uint8Array, h: number, he: number, slot: number): string {
  const len = he - h;
  const seen = hostBytes[slot];
  if (seen.length === len) {
    let k = 0;
    while (k < len && seen[k] === b[h + k]) k++;
    if (k === len) return hostCache[slot] as string;
  }
  const bytes = Buffer.from(b.subarray(h, he)); // a copy
  const host = bytes.toString('latin1');
  hostCache[slot] = host;
  hostBytes[slot] = bytes;
  return host;
}

export const polynomialParser: LineParser = {
  name: 'polynomial',
  parse: (line: string): ParsedLine | null => parseVia(parseInto, line),
  parseInto,
  parseBytes,
};
