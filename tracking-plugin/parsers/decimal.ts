// Correctly rounded doubles for decimals of 16 to 18 significant digits (json.dumps and JavaScript
// print up to 17) from their digits, without a substring and Number().
// The decimal is D·10^-k = (D / 5^k)·2^-k: q = D / 5^k in doubles is checked with exact arithmetic
// (Dekker's product) to be D / 5^k rounded to nearest, or moved to its neighbour; the 2^-k is exact.
// Where the check cannot tell (a near tie, q = 2^n off), NaN: the caller asks Number().

const SPLIT = 134217729; // 2^27 + 1: Veltkamp's split of a double into two halves of 26 bits
const POW5: number[] = [];
const POW2: number[] = []; // 2^-k
for (let k = 0, p = 1, h = 1; k <= 22; k++, p *= 5, h /= 2) {
  POW5.push(p); // exact: 5^22 < 2^53
  POW2.push(h);
}
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer); // little-endian: u32[1] holds sign, exponent, top of mantissa

/** (A + B)·10^-k rounded to nearest, for integers A (exact, at least 10^15) and 0 <= B < 10^8 (so
 *  A + B is the decimal's 16-18 digits) and 1 <= k <= 22; NaN where Number() must decide. */
export function decimalOver(A: number, B: number, k: number): number {
  const F = POW5[k];
  const q = (A + B) / F;
  // p1 + p2 = q·F exactly
  const p1 = q * F;
  let t = SPLIT * q;
  const qh = t - (t - q);
  const ql = q - qh;
  t = SPLIT * F;
  const fh = t - (t - F);
  const fl = F - fh;
  const p2 = qh * fh - p1 + qh * fl + ql * fh + ql * fl;
  // r = A + B - q·F: A - p1 is exact (they are within a factor 2), and so is adding B (few bits)
  const r = A - p1 + B - p2; // one rounding, in the last step: relative error 2^-53 at most
  f64[0] = q;
  const exp = (u32[1] >>> 20) & 0x7ff;
  const pow2 = (u32[1] & 0xfffff) === 0 && u32[0] === 0; // q = 2^n: the gap below is half the ulp
  u32[1] = (exp - 52) << 20;
  u32[0] = 0;
  const ulp = f64[0];
  const gap = F * ulp; // exact
  // |r| below half the gap (less a margin for r's rounding): q is the nearest; else maybe the next
  const half = (pow2 ? gap / 4 : gap / 2) * (1 - 2 ** -40);
  if (Math.abs(r) < half) return q * POW2[k];
  if (pow2) return NaN;
  if (Math.abs(r > 0 ? r - gap : r + gap) < half) return (r > 0 ? q + ulp : q - ulp) * POW2[k];
  return NaN;
}
