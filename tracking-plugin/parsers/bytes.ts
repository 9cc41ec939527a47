// Reading a log line's bytes by hand, for the parsers' fast paths (a regex needs a string).

/** Bytes i to i + 3 as one number (0 for a byte past the end): words are compared 4 bytes at a time. */
const quadAt = (b: Uint8Array, i: number): number =>
  b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);

/** An ASCII word of 4 to 8 bytes for word(): quadAt of its first and last 4 bytes (overlapping when shorter). */
interface Word {
  n: number;
  first: number;
  last: number;
}

export function wordOf(ascii: string): Word {
  const b = Buffer.from(ascii, 'latin1');
  const n = b.length;
  if (n < 4 || n > 8) throw new Error(`wordOf: ${n} bytes (4 to 8)`);
  return { n, first: quadAt(b, 0), last: quadAt(b, n - 4) };
}

/** Where `w` ends if bytes hold it at i, else -1 (quadAt written out, on the parsers' hot path). */
export function word(b: Uint8Array, i: number, w: Word): number {
  const j = i + w.n - 4;
  if ((b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) !== w.first) return -1;
  return (b[j] | (b[j + 1] << 8) | (b[j + 2] << 16) | (b[j + 3] << 24)) === w.last ? j + 4 : -1;
}

/** The ASCII bytes[a, e) as a string of its own (not a view of a longer one). */
export const asciiText = (b: Uint8Array, a: number, e: number): string =>
  Buffer.from(b.buffer, b.byteOffset + a, e - a).toString('latin1');
