// Reading a log line's bytes by hand, for the parsers' fast paths (a regex needs a string).

/** An ASCII word to look for with word(). Every word is a Buffer, as the lines are: element reads
 *  of one kind of array stay fast (a mix of arrays and Buffers made them slower). */
export const wordOf = (ascii: string): Buffer => Buffer.from(ascii, 'latin1');

/** Where `w` ends if bytes hold it at i, else -1. */
export function word(b: Uint8Array, i: number, w: Buffer): number {
  const n = w.length;
  for (let k = 0; k < n; k++) if (b[i + k] !== w[k]) return -1;
  return i + n;
}
