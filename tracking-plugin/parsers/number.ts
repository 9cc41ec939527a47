// Numbers as training scripts print them: Python floats, nan, inf, -inf, tensor(0.5). Text is checked
// with regexes, with no trimmed or lower-cased copies, and the usual decimals convert without Number()
// (numberOf); bytes in a read buffer are checked and converted in one loop (scanNumber).
import { asciiText } from './bytes';
import { decimalOver } from './decimal';

/** Regex source for one number as printed by Python (incl. nan / inf). */
export const NUMBER_SOURCE = String.raw`[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf(?:inity)?)`;

// \s is what trim() removes and what Number() skips; [eE] and the i flag stand for lower-casing first.
const FINITE = /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/;
const SPECIAL = /^\s*([-+]?)(?:(nan)|inf(?:inity)?)\s*$/i;
const DIGITS = /^\s*\d+\s*$/;

export function parseNumber(text: string): number | undefined {
  if (FINITE.test(text)) {
    // never NaN here; Number() trims the same white space, and without any numberOf applies
    const a = text.charCodeAt(0);
    const b = text.charCodeAt(text.length - 1);
    const bare =
      (a === 0x2b || a === 0x2d || a === 0x2e || (a >= 0x30 && a <= 0x39)) &&
      (b === 0x2e || (b >= 0x30 && b <= 0x39));
    return bare ? numberOf(text) : Number(text);
  }
  const m = SPECIAL.exec(text);
  if (!m) return undefined;
  return m[2] !== undefined ? NaN : m[1] === '-' ? -Infinity : Infinity;
}

// Powers of ten that are exact doubles: a decimal of at most 15 significant digits and an exponent of
// at most 22 is one correctly rounded operation (Clinger's fast path), what Number() gives.
const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
  1e20, 1e21, 1e22,
];

/** The value of a whole match of NUMBER_SOURCE (as a regex that captured it): parseNumber's. */
export function numberOf(t: string): number {
  const n = t.length;
  if (n > 18) return Number(t); // long: most likely more than 15 digits
  let c = t.charCodeAt(n - 1);
  if (!((c >= 0x30 && c <= 0x39) || c === 0x2e)) {
    // [-+]?(nan|inf|infinity), in any case: nan ends in n, the others in f or y
    return (c | 0x20) === 0x6e ? NaN : t.charCodeAt(0) === 0x2d ? -Infinity : Infinity;
  }
  c = t.charCodeAt(0);
  const neg = c === 0x2d;
  let i = neg || c === 0x2b ? 1 : 0;
  let mant = 0;
  let digits = 0; // significant ones, in mant
  let scale = 0; // digits after the point
  let point = false;
  for (; i < n; i++) {
    c = t.charCodeAt(i);
    if (c > 0x39) break; // e or E: the exponent
    if (c === 0x2e) point = true;
    else {
      if (digits > 0 || c !== 0x30) {
        if (++digits > 15) return Number(t);
        mant = mant * 10 + (c - 0x30);
      }
      if (point) scale += 1;
    }
  }
  let e = -scale; // the value is mant * 10^e
  if (i < n) {
    // [eE][-+]?\d+
    c = t.charCodeAt(++i);
    const eneg = c === 0x2d;
    if (eneg || c === 0x2b) i++;
    if (n - i > 3) return Number(t);
    let x = 0;
    for (; i < n; i++) x = x * 10 + (t.charCodeAt(i) - 0x30);
    e += eneg ? -x : x;
  }
  let v: number;
  if (e >= 0 && e <= 22) v = mant * POW10[e];
  else if (e < 0 && e >= -22) v = mant / POW10[-e];
  else return Number(t);
  return neg ? -v : v;
}

/** Where the number scanNumber read last ends (-1: there was none) and where its exponent starts
 *  (-1: none), for the checks of the form that are a parser's own (JSON's leading zero, `E`). */
export const scanned = { end: -1, exp: -1 };

/** The number -?\d+(?:\.\d+)?(?:[eE][-+]?\d+)? at s[i] (ASCII bytes) as Number() gives it, read in
 *  the pass that finds its end (scanned.end). NaN where Number() must decide (numberOfBytes), and where
 *  there is no number (scanned.end -1). The bytes after it are the caller's to check. */
export function scanNumber(s: Uint8Array, i: number): number {
  let c = s[i];
  const neg = c === 0x2d;
  if (neg) c = s[++i];
  const m0 = i;
  // every digit into mant: exact while below 2^53 (then it is the integer the digits write)
  let mant = 0;
  for (; c >= 0x30 && c <= 0x39; c = s[++i]) mant = mant * 10 + (c - 0x30);
  if (i === m0) return noNumber();
  let e = 0; // the value is mant * 10^e
  if (c === 0x2e) {
    // the first 9 digits as an integer, then on as a double
    const f = ++i;
    let x = 0;
    for (c = s[i]; c >= 0x30 && c <= 0x39 && i - f < 9; c = s[++i]) x = x * 10 + (c - 0x30);
    if (i === f) return noNumber();
    mant = mant * POW10[i - f] + x;
    for (; c >= 0x30 && c <= 0x39; c = s[++i]) mant = mant * 10 + (c - 0x30);
    e = f - i;
  }
  const m1 = i;
  scanned.exp = -1;
  if ((c | 0x20) === 0x65) {
    scanned.exp = i;
    c = s[++i];
    const eneg = c === 0x2d;
    if (eneg || c === 0x2b) c = s[++i];
    const x0 = i;
    let x = 0;
    for (; c >= 0x30 && c <= 0x39; c = s[++i]) x = x * 10 + (c - 0x30);
    if (i === x0) return noNumber();
    e += eneg ? -x : x;
  }
  scanned.end = i;
  let v: number;
  if (mant < 2 ** 53) {
    // Clinger: an exact integer and an exact power of ten, one rounding
    if (e >= 0 && e <= 22) v = mant * POW10[e];
    else if (e < 0 && e >= -22) v = mant / POW10[-e];
    else return NaN;
  } else if (e < 0 && e >= -22) v = longDecimal(s, m0, m1, -e);
  else return NaN;
  return neg ? -v : v;
}

function noNumber(): number {
  scanned.end = -1;
  return NaN;
}

/** The digits in s[m0, m1) (a point among them) times 10^-k, by decimalOver where they are 16 to 18
 *  significant ones (the first 10 and the rest as two exact integers); else NaN. */
function longDecimal(s: Uint8Array, m0: number, m1: number, k: number): number {
  let hi = 0;
  let lo = 0;
  let digits = 0;
  for (let i = m0; i < m1; i++) {
    const c = s[i];
    if (c === 0x2e || (digits === 0 && c === 0x30)) continue;
    if (++digits <= 10) hi = hi * 10 + (c - 0x30);
    else lo = lo * 10 + (c - 0x30);
  }
  return digits > 15 && digits <= 18 ? decimalOver(hi * POW10[digits - 10], lo, k) : NaN;
}

/** Number() of the ASCII bytes s[a, b), for a number scanNumber leaves to it. */
export const numberOfBytes = (s: Uint8Array, a: number, b: number): number => Number(asciiText(s, a, b));

/** A step must be a non-negative safe integer (MLflow stores int64; JS is exact up to 2^53). */
export function parseStep(text: string | number | undefined): number | undefined {
  if (typeof text === 'string' && text.length <= 15) {
    // the usual: digits only, a safe integer
    let v = 0;
    let i = 0;
    for (let c = text.charCodeAt(0); i < text.length && c >= 0x30 && c <= 0x39; c = text.charCodeAt(++i))
      v = v * 10 + (c - 0x30);
    if (i === text.length && i > 0) return v;
  }
  if (text === undefined) return undefined;
  const n = typeof text === 'number' ? text : DIGITS.test(text) ? Number(text) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
