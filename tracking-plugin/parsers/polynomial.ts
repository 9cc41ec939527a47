// The seed's polynomial example: `epoch 100, loss = 0.154, rank 0/3 (cpuamdg10001).`
// Also accepts `loss = tensor(0.154, grad_fn=...)`, which the script prints without .item().
import { word } from './bytes';
import { NUMBER_SOURCE, numberIn, numberInBytes, numberOf } from './number';
import { emit, parseVia } from './out';
import type { LineParser, MetricsOut, ParsedLine } from './types';

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

// The last hosts seen, strings of their own: most lines repeat one (a log interleaving many ranks
// names a few), and then no string is made for them.
const recentHosts: string[] = [];

const EPOCH = [0x65, 0x70, 0x6f, 0x63, 0x68, 0x20]; // "epoch "
const LOSS = [0x2c, 0x20, 0x6c, 0x6f, 0x73, 0x73, 0x20, 0x3d, 0x20]; // ", loss = "
const RANK = [0x2c, 0x20, 0x72, 0x61, 0x6e, 0x6b, 0x20]; // ", rank "

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** Where a run of digits starting at i ends (i itself: none). */
function digits(b: Uint8Array, i: number, to: number): number {
  while (i < to && isDigit(b[i])) i++;
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
  text: string,
  at: number,
): boolean {
  let i = word(b, from, EPOCH);
  if (i < 0) return false;
  const s0 = i;
  i = digits(b, i, to);
  if (i === s0 || i - s0 > 15) return false;
  let step = 0;
  for (let k = s0; k < i; k++) step = step * 10 + (b[k] - 0x30);
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
  for (let c = b[he]; he < to && c !== 0x29; c = b[++he])
    if (c === 0x28 || c === 0x20 || (c >= 0x09 && c <= 0x0d) || c >= 0x80) return false;
  if (he === to || he === h || he - h > 255) return false;
  emit(out, 'loss', numberInBytes(b, v, ve, text, at - from), step);
  out.host = hostOf(b, h, he);
  return true;
}

/** The host in bytes[h, he) (ASCII), as one of the last hosts seen where it is (no new string). */
function hostOf(b: Uint8Array, h: number, he: number): string {
  const len = he - h;
  for (let r = 0; r < recentHosts.length; r++) {
    const host = recentHosts[r];
    if (host.length !== len) continue;
    let k = 0;
    while (k < len && host.charCodeAt(k) === b[h + k]) k++;
    if (k === len) return host;
  }
  const host = Buffer.from(b.buffer, b.byteOffset + h, len).toString('latin1');
  if (recentHosts.length >= 16) recentHosts.pop();
  recentHosts.unshift(host);
  return host;
}

export const polynomialParser: LineParser = {
  name: 'polynomial',
  parse: (line: string): ParsedLine | null => parseVia(parseInto, line),
  parseInto,
  parseBytes,
};
