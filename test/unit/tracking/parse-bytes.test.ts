// parseBytes (a line read where it sits in a LineBatch's buffer, no string per line) gives what
// parseInto gives on the line, or leaves the line to it (false, nothing emitted), for lines near the
// fast paths' forms and their near misses, non-ASCII ones included, with other lines around them.
import fc from 'fast-check';
import { jsonlParser } from '../../../tracking-plugin/parsers/jsonl';
import { metricsOut } from '../../../tracking-plugin/parsers/out';
import { polynomialParser } from '../../../tracking-plugin/parsers/polynomial';
import { LineBatch } from '../../../tracking-plugin/logs/lines';
import { lineTimes, tsToMs } from '../../../tracking-plugin/logs/times';
import { autoParser, type LineParser, type MetricsOut } from '../../../tracking-plugin/parsers';

const num = fc.oneof(
  fc.double({ noNaN: true }).map((x) => JSON.stringify(x)),
  fc.constantFrom(
    '0',
    '-0',
    '1e5',
    '1E-7',
    '0.5',
    '00',
    '1.',
    '.5',
    '-',
    '1e',
    '12345678901234567890',
    'NaN',
    '0.69999234567891234',
    '9007199254740993.0',
    '4503599627370496.5',
    '123456789012345678',
    '0.1000000000000000055511151231257827',
  ),
  fc.integer().map(String),
  // 16 to 18 significant digits (decimal.ts), the point anywhere
  fc
    .tuple(fc.stringOf(fc.constantFrom(...'0123456789'), { minLength: 16, maxLength: 18 }), fc.nat(18))
    .map(([d, p]) => `${d.slice(0, 1 + (p % d.length))}.${d.slice(1 + (p % d.length)) || '0'}`),
);
const key = fc.oneof(
  fc.constantFrom('loss', 'acc', 'val/loss', '0', '1a', '', 'a"b', 'a\\"b', 'é', 'loss'),
  fc.string({ maxLength: 14 }),
);
const sp = fc.constantFrom('', ' ', '  ');
const jsonl = fc
  .tuple(
    sp,
    fc.constantFrom('1', '2', '01', 'true'),
    fc.option(fc.oneof(fc.nat().map(String), fc.constantFrom('00', '-1', '1.5', '1234567890123456'))),
    fc.array(fc.tuple(key, num, sp), { maxLength: 4 }),
    sp,
    fc.constantFrom('}}', '} }', '}}x', '}'),
  )
  .map(
    ([s, v, step, pairs, s2, end]) =>
      `${s}{"track_launch":${s2}${v},${s2}${step === null ? '' : `"step":${s}${step},${s2}`}"metrics":${s}{` +
      pairs.map(([k, n, s3]) => `${JSON.stringify(k).replace('\\\\', '\\')}:${s3}${n}`).join(`,${s2}`) +
      end,
  );
const poly = fc
  .tuple(
    fc.constantFrom('epoch', 'Epoch', 'epoch  '),
    fc.oneof(fc.nat().map(String), fc.constantFrom('1234567890123456', 'x')),
    num,
    fc.constantFrom(
      'node1',
      'host with space',
      'a(b',
      '',
      'n'.repeat(300),
      'é',
      'a!b',
      "n'1",
      'a\x01b',
      'a\tb',
    ),
    fc.constantFrom('.', '', ' tail', ')'),
  )
  .map(([e, s, n, h, tail]) => `${e} ${s}, loss = ${n}, rank 0/3 (${h})${tail}`);

function same(parser: LineParser, line: string, before: string, after: string): void {
  const want = metricsOut();
  parser.parseInto(line, want);
  // the line inside a LineBatch, as extractPoints hands it over (no text asked for before: an ASCII
  // batch is decoded only where parseBytes asks for the text)
  const batch = new LineBatch(Buffer.from(before + line + '\n' + after + '\n'), 0);
  const i = before.split('\n').length - 1;
  const got = metricsOut();
  const took = parser.parseBytes!(batch.buffer, batch.byteStart(i), batch.byteStop(i), got);
  expect(batch.text(i)).toBe(line);
  const view = (o: MetricsOut) => ({
    n: o.n,
    host: o.host,
    keys: o.keys.slice(0, o.n),
    values: o.values.slice(0, o.n),
    steps: o.steps.slice(0, o.n),
  });
  if (took) expect(view(got)).toStrictEqual(view(want));
  else expect(got.n).toBe(0);
}

const around = fc.constantFrom('', 'x\n', 'epoch 1, loss = 1, rank 0/1 (h).\n', '{"track_launch": 1}\r\n');
const ending = fc.constantFrom('', 'épsilon', 'epoch 2, loss = 2, rank 0/1 (h).', '}}');

describe('parseBytes', () => {
  it.each([
    ['polynomial', polynomialParser, poly],
    ['jsonl', jsonlParser, jsonl],
    ['auto', autoParser, fc.oneof(poly, jsonl)],
  ] as const)('%s: as parseInto on the line cut out', (_name, parser, line) => {
    fc.assert(
      fc.property(line, around, ending, (l, before, after) =>
        same(parser, l.replace(/[\r\n]/g, ' '), before, after),
      ),
      { numRuns: 3000 },
    );
  });
  it('the usual lines, exactly', () => {
    same(jsonlParser, '{"track_launch": 1, "step": 10, "metrics": {"loss": 0.25, "acc": 0.9}}', 'a\n', '\n');
    same(jsonlParser, '{"track_launch":1,"metrics":{"loss":-1.5e-7}}', '', '');
    same(jsonlParser, '{"track_launch": 1, "step": 1, "metrics": {"a": 1, "a": 2}}', '', '\n');
    same(polynomialParser, 'epoch 100, loss = 0.154, rank 0/3 (node1).', 'x\n', '\r\n');
    same(polynomialParser, 'epoch 100, loss = tensor(0.154, grad_fn=<X>), rank 0/3 (node1).', '', '\n');
  });
});

describe('parseBytes at the edges', () => {
  it.each([
    ['polynomial', polynomialParser, 'epoch 12, loss = -0.125e-3, rank 1/2 (node7)'],
    ['jsonl', jsonlParser, '{"track_launch": 1, "step": 3, "metrics": {"loss": 0.25, "acc": 1e5}}'],
  ] as const)(
    '%s: every cut of a line, ending the buffer (reads past it), is as parseInto has it',
    (_n, parser, line) => {
      for (let k = 0; k <= line.length; k++) {
        const cut = line.slice(0, k);
        const want = metricsOut();
        parser.parseInto(cut, want);
        const got = metricsOut();
        if (parser.parseBytes!(Buffer.from(cut), 0, k, got))
          expect([got.n, got.values[0], got.host]).toStrictEqual([want.n, want.values[0], want.host]);
        else expect(got.n).toBe(0);
      }
    },
  );
  it("jsonl: keys read against the line before's (longer, shorter, same bytes), as parseInto", () => {
    const keyOf = fc.constantFrom('loss', 'los', 'lossx', 'acc', 'a', 'ab', 'loss2', '');
    fc.assert(
      fc.property(fc.array(fc.array(fc.tuple(keyOf, num), { maxLength: 3 }), { maxLength: 8 }), (lines) => {
        for (const pairs of lines)
          same(
            jsonlParser,
            `{"track_launch": 1, "metrics": {${pairs.map(([k, n]) => `"${k}": ${n}`).join(', ')}}}`,
            '',
            '',
          );
      }),
      { numRuns: 1000 },
    );
  });
  it('jsonl: lines of many keys, with and without a duplicate, give what JSON.parse gives', () => {
    for (const n of [63, 64, 65, 300])
      for (const twice of [false, true]) {
        const pairs = Array.from({ length: n }, (_, k) => `"k${k}": ${k + 0.5}`);
        if (twice) pairs.push('"k5": -1'); // JSON.parse keeps the last value in the first place
        const line = `{"track_launch": 1, "step": 7, "metrics": {${pairs.join(', ')}}}`;
        const metrics = (JSON.parse(line) as { metrics: Record<string, number> }).metrics;
        const want = {
          n,
          keys: Object.keys(metrics),
          values: Object.values(metrics),
          steps: Array(n).fill(7),
        };
        const view = (o: MetricsOut) => ({
          n: o.n,
          keys: o.keys.slice(0, o.n),
          values: o.values.slice(0, o.n),
          steps: o.steps.slice(0, o.n),
        });
        const viaText = metricsOut();
        jsonlParser.parseInto(line, viaText);
        expect(view(viaText)).toEqual(want);
        const viaBytes = metricsOut();
        const bytes = Buffer.from(line);
        const took = jsonlParser.parseBytes!(bytes, 0, bytes.length, viaBytes);
        // up to 64 distinct keys on the fast path; more, or a key twice, left to parseInto
        expect([n, twice, took]).toEqual([n, twice, !twice && n <= 64]);
        if (took) expect(view(viaBytes)).toEqual(want);
      }
  });
  it('polynomial: the host is left undefined where it is not wanted, the metrics are the same', () => {
    const line = Buffer.from('epoch 5, loss = 0.5, rank 0/1 (node1).');
    const out = metricsOut();
    out.hostWanted = false;
    expect(polynomialParser.parseBytes!(line, 0, line.length, out)).toBe(true);
    expect([out.n, out.keys[0], out.values[0], out.steps[0], out.host]).toStrictEqual([
      1,
      'loss',
      0.5,
      5,
      undefined,
    ]);
  });
});

describe('lineTimes from bytes', () => {
  it('gives tsToMs of each line, the time before where a line has none', () => {
    const stamp = fc.oneof(
      fc.tuple(fc.nat(), fc.nat(999_999)).map(([s, us]) => `${s}.${String(us).padStart(6, '0')}`),
      fc.constantFrom(
        '',
        ' 1.5',
        '1.5 ',
        '12345678901234.5',
        '1.',
        '.5',
        '1.1234567890',
        '17960000',
        'x',
        'é1.5',
        '1\r',
      ),
      fc.stringOf(fc.constantFrom('1', '.', '0', ' ', '9'), { maxLength: 16 }),
    );
    fc.assert(
      fc.property(fc.array(stamp, { maxLength: 20 }), fc.nat(5), (lines, skip) => {
        const batch = new LineBatch(Buffer.from(lines.map((l) => l + '\n').join('')), 0);
        const take = lines.length + 2;
        let last = 42;
        const want = [];
        for (let i = 0; i < take; i++) {
          const t = skip + i < batch.length ? tsToMs(batch.text(skip + i)) : undefined;
          if (t !== undefined) last = t;
          want.push(last);
        }
        expect(lineTimes(batch, skip, take, 42)).toEqual(want);
      }),
      { numRuns: 2000 },
    );
  });
});
