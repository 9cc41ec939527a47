// Reading a log line's bytes by hand, for the parsers' fast paths (a regex needs a string).

/** Where `w` ends if bytes hold it at i, else -1. */
export function word(b: Uint8Array, i: number, w: ArrayLike<number>): number {
  for (let k = 0; k < w.length; k++) if (b[i + k] !== w[k]) return -1;
  return i + w.length;
}
