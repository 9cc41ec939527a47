// The seed's polynomial example: `epoch 100, loss = 0.154, rank 0/3 (cpuamdg10001).`
// Also accepts `loss = tensor(0.154, grad_fn=...)`, which the script prints without .item().
import { asciiText, word, wordOf } from './bytes';
import { NUMBER_SOURCE, numberOf, numberOfBytes, scanNumber, scanned } from './number';
import { emit, lineParser } from './out';
import type { MetricsOut } from './types';

const LINE = new RegExp(
  String.raw`\bepoch\s+(\d{1,15}),\s*loss\s*=\s*(?:tensor\(\s*)?(${NUMBER_SOURCE})` +
    String.raw`(?:,\s*(?:grad_fn|device|dtype|requires_grad)=[^,)]{0,200})*\s*\)?` +
    String.raw`(?:,\s*rank\s+\d+\s*/\s*\d+\s*\(([^()\s]{1,255})\))?`,
  'i',
);

function parseInto(line: string, out: MetricsOut): void {
  if (line.length > 4096 && !line.includes('epoch')) return;
  const m = LINE.exec(line);
  if (!m) return;
  // \d{1,15} is a safe integer; m[2] is a whole number as NUMBER_SOURCE matches it
  emit(out, 'loss', numberOf(m[2]), Number(m[1]));
  if (m[3]) out.host = m[3];
}

const EPOCH = wordOf('epoch ');
const LOSS = wordOf(', loss =');
const RANK = wordOf(', rank ');

/** Where a run of digits starting at i ends (i itself: none). */
function digits(b: Uint8Array, i: number): number {
  for (let c = b[i]; c >= 0x30 && c <= 0x39; c = b[++i]);
  return i;
}

/** The line as the example prints it, from its first character, read from its bytes with the number
 *  in the same pass: `epoch \d{1,15}, loss = -?\d+(?:\.\d+)?(?:e-?\d+)?, rank \d+\/\d+ \(<host>\)`.
 *  There LINE matches with the same groups. False for any other line, and where the host has a
 *  non-ASCII byte (\s knows more than ASCII white space). Bytes are read up to the host's `)` before `to` is checked: a line ends
 *  in \n or \r, which no part before the `)` takes, or at the buffer's end (reads give undefined). */
function parseBytes(b: Uint8Array, from: number, to: number, out: MetricsOut): boolean {
  let i = word(b, from, EPOCH);
  if (i < 0) return false;
  const s0 = i;
  let step = 0;
  for (let c = b[i]; c >= 0x30 && c <= 0x39; c = b[++i]) step = step * 10 + (c - 0x30);
  if (i === s0 || i - s0 > 15) return false;
  i = word(b, i, LOSS);
  if (i < 0 || b[i] !== 0x20) return false;
  const v = i + 1;
  let value = scanNumber(b, v); // -?\d+(?:\.\d+)?(?:e-?\d+)?
  const ve = scanned.end;
  const e = scanned.exp;
  if (ve < 0 || (e >= 0 && (b[e] !== 0x65 || b[e + 1] === 0x2b))) return false;
  i = word(b, ve, RANK); // , rank \d+\/\d+ \(
  if (i < 0) return false;
  const j = digits(b, i);
  if (j === i || b[j] !== 0x2f) return false;
  i = digits(b, j + 1);
  if (i === j + 1 || b[i] !== 0x20 || b[i + 1] !== 0x28) return false;
  const h = i + 2; // [^()\s]{1,255}\), of bytes past `)` and below 0x80 (others: the string path)
  let he = h;
  for (let c = b[he]; c > 0x29 && c < 0x80; c = b[++he]);
  if (b[he] !== 0x29 || he >= to || he === h || he - h > 255) return false;
  if (value !== value) value = numberOfBytes(b, v, ve); // NaN: Number() decides
  emit(out, 'loss', value, step);
  if (out.hostWanted) out.host = asciiText(b, h, he);
  return true;
}

export const polynomialParser = lineParser('polynomial', parseInto, parseBytes);
