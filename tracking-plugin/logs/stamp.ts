// A line time of logs/rank-R.out.ts as the bootstrap writes it, to ms since the epoch.

/** `1764669000.123456` (Unix seconds, microseconds) -> ms since the epoch, exactly, without float error. */
export function tsToMs(line: string): number | undefined {
  // the usual form (digits, a point, digits) without a regex or substrings; anything else: TS below
  const n = line.length;
  let i = 0;
  let sec = 0;
  for (let c = line.charCodeAt(0); i < n && c >= 0x30 && c <= 0x39; c = line.charCodeAt(++i))
    sec = sec * 10 + (c - 0x30);
  if (i === 0 || i > 12) return tsToMsRegex(line);
  if (i === n) return sec * 1000;
  if (line.charCodeAt(i) !== 0x2e) return tsToMsRegex(line);
  const f = ++i;
  let ms = 0;
  for (let c = line.charCodeAt(i); i < n && c >= 0x30 && c <= 0x39; c = line.charCodeAt(++i))
    if (i - f < 3) ms = ms * 10 + (c - 0x30);
  if (i === f || i - f > 9 || i !== n) return tsToMsRegex(line);
  for (let k = i - f; k < 3; k++) ms *= 10; // .5 is 500 ms
  return sec * 1000 + ms;
}

const TS = /^\s*(\d{1,12})(?:\.(\d{1,9}))?\s*$/;

function tsToMsRegex(line: string): number | undefined {
  const m = TS.exec(line);
  if (!m) return undefined;
  const frac = ((m[2] ?? '') + '000').slice(0, 3);
  return Number(m[1]) * 1000 + Number(frac);
}
