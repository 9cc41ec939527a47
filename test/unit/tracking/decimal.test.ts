// Numbers of 16 to 18 significant digits read from bytes (parsers/decimal.ts) are what Number()
// gives: random digits with the point anywhere and exponents, exact ties (which it leaves to
// Number()), powers of two and their neighbours.
import fc from 'fast-check';
import { decimalOver } from '../../../tracking-plugin/parsers/decimal';
import { numberOfBytes, scanNumber, scanned } from '../../../tracking-plugin/parsers/number';

/** scanNumber on the number alone, inside other bytes (as in a line), then Number() where it leaves
 *  the number to it: what a parser's fast path gives. */
function fromBytes(t: string): number {
  const b = Buffer.from(`__${t},`);
  const v = scanNumber(b, 2);
  expect(scanned.end).toBe(2 + t.length);
  return v === v ? v : numberOfBytes(b, 2, 2 + t.length);
}

const digitsOf = (min: number, max: number) =>
  fc.stringOf(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max });

describe('16 to 18 digits from bytes', () => {
  it('as Number(), the point anywhere, with a sign and an exponent', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('', '-'),
        fc.constantFrom(...'123456789'),
        digitsOf(15, 17),
        fc.nat(40),
        fc.option(fc.integer({ min: -30, max: 30 }), { nil: undefined }),
        (sign, first, rest, p, e) => {
          const d = first + rest;
          const at = p % (d.length + 1);
          const body = at === d.length ? d : `${d.slice(0, at) || '0'}.${d.slice(at)}`;
          const t = `${sign}${body}${e === undefined ? '' : `e${e}`}`;
          expect(Object.is(fromBytes(t), Number(t))).toBe(true);
        },
      ),
      { numRuns: 20000 },
    );
  });
  it('as Number() for the shortest texts of random doubles (what json.dumps and JSON.stringify write)', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-9, max: 1e9, noNaN: true }), (x) => {
        const t = String(x);
        if (/e/.test(t)) return;
        expect(Object.is(fromBytes(t), x)).toBe(true);
      }),
      { numRuns: 20000 },
    );
  });
  it('as Number() for any digits (1 to 30, the point anywhere, an exponent or none): scanNumber or Number()', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('', '-'),
        digitsOf(1, 30),
        fc.nat(40),
        fc.option(fc.tuple(fc.constantFrom('e', 'E', 'e+', 'e-'), fc.nat(400)), { nil: undefined }),
        (sign, d, p, e) => {
          const at = 1 + (p % d.length);
          const body = at === d.length ? d : `${d.slice(0, at)}.${d.slice(at)}`;
          const t = `${sign}${body}${e === undefined ? '' : `${e[0]}${e[1]}`}`;
          expect(Object.is(fromBytes(t), Number(t))).toBe(true);
        },
      ),
      { numRuns: 20000 },
    );
  });
  it('ties and powers of two: the nearest double, ties to even, as Number()', () => {
    const cases = [
      '9007199254740993.0', // halfway between 2^53 and 2^53 + 2
      '9007199254740995.0',
      '4503599627370496.5', // halfway at 2^52
      '4503599627370497.5',
      '1125899906842624.125',
      '0.5000000000000000',
      '1.000000000000000111', // just past the tie above 1
      '1.000000000000000111022302462515654',
      '0.9999999999999999444888487687421729',
      '2.000000000000000000',
      '1.9999999999999998',
      '0.30000000000000004',
      '0.69999234567891234',
      '123456789012345.678',
    ];
    for (const t of cases) expect([t, fromBytes(t)]).toStrictEqual([t, Number(t)]);
  });
  it('decimalOver gives Number() or NaN (Number() then decides), never another double', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1e9, max: 1e10 - 1 }),
        digitsOf(6, 8),
        fc.integer({ min: 1, max: 22 }),
        (hi, lo, k) => {
          const n = lo.length;
          const v = decimalOver(hi * 10 ** n, Number(lo), k);
          const want = Number(`${hi}${lo}e-${k}`);
          if (!Number.isNaN(v)) expect(v).toBe(want);
        },
      ),
      { numRuns: 20000 },
    );
  });
});
