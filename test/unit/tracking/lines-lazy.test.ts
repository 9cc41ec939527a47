// LineBatch decodes an all-ASCII piece only when a text is asked for (logs/lines.ts): whatever line
// is asked first, in whatever order, texts and the byte ranges agree with a decode
// of each line on its own; pieces with other bytes (decoded at once), CR LF, cut lines among them.
import fc from 'fast-check';
import { LineBatch, MAX_LINE } from '../../../tracking-plugin/logs/lines';

/** Each complete line decoded on its own, without its \r\n or \n, cut at MAX_LINE bytes. */
function reference(buf: Buffer): string[] {
  const out: string[] = [];
  for (let at = 0; ;) {
    const nl = buf.indexOf(0x0a, at);
    if (nl < 0) return out;
    let stop = nl;
    if (nl - at > MAX_LINE) stop = at + MAX_LINE;
    else if (stop > at && buf[stop - 1] === 0x0d) stop -= 1;
    out.push(buf.toString('utf8', at, stop));
    at = nl + 1;
  }
}

function check(buf: Buffer, order: number[]): void {
  const want = reference(buf);
  const batch = new LineBatch(buf, 5);
  expect(batch.length).toBe(want.length);
  for (const j of order) {
    const i = j % Math.max(1, want.length);
    if (i >= want.length) continue;
    expect(batch.text(i)).toBe(want[i]);
    if (batch.byteStart(i) >= 0)
      expect(buf.toString('utf8', batch.byteStart(i), batch.byteStop(i))).toBe(want[i]);
  }
}

const line = fc.oneof(
  fc.stringOf(fc.constantFrom('a', 'b', ' ', '1', '.', '\r'), { maxLength: 30 }),
  fc.string({ maxLength: 10 }),
  fc.fullUnicodeString({ maxLength: 5 }),
  fc.constantFrom('\r', '', 'é', '€\r', 'x'.repeat(200)),
);

describe('LineBatch, decoded lazily', () => {
  it('random lines, asked for in random order', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 60 }), (ls, order) =>
        check(Buffer.from(ls.map((l) => `${l}\n`).join('')), order),
      ),
      { numRuns: 2000 },
    );
  });
  it('pieces: ASCII ones (lazy) beside non-ASCII ones, CR LF at a cut, a line longer than MAX_LINE', () => {
    const mib = 1 << 20;
    const parts = [
      Buffer.from('first\r\n'),
      Buffer.alloc(mib - 10, 'a'),
      Buffer.from('\r\nsecond ü\n'),
      Buffer.from('ascii only\r\n'.repeat(100_000)),
      Buffer.alloc(MAX_LINE + 7, 'L'),
      Buffer.from('\r\nafter the long line\n€ at the end\r\n'),
    ];
    const buf = Buffer.concat(parts);
    const n = reference(buf).length;
    check(buf, [n - 1, n - 2, n - 3, 2, 1, 0, 50_000, 3]);
    check(buf, [0, 1, 2, 3, 50_000, n - 3, n - 2, n - 1]);
  });
});
