import fc from 'fast-check';
import { csvRecord, forEachCsvRecord } from '../../../data/csv';
import { parseCsv } from './helpers';
import { TrackLaunchError } from '../../../core/errors';

function errorOf(text: string): TrackLaunchError {
  try {
    parseCsv(text, 'f.csv');
  } catch (e) {
    expect(e).toBeInstanceOf(TrackLaunchError);
    return e as TrackLaunchError;
  }
  throw new Error('no error');
}

describe('RFC 4180 parsing', () => {
  it('reads plain, quoted, doubled-quote and multi-line fields, LF and CRLF', () => {
    expect(parseCsv('a,b,c\n1,2,3\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', '2', '3'],
    ]);
    expect(parseCsv('a,b\r\n1,2\r\n')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(parseCsv('a,b\n"x,y","say ""hi"""\n')).toEqual([
      ['a', 'b'],
      ['x,y', 'say "hi"'],
    ]);
    expect(parseCsv('a,b\n"line1\nline2",2\n3,4')).toEqual([
      ['a', 'b'],
      ['line1\nline2', '2'],
      ['3', '4'],
    ]);
    expect(parseCsv('a,b\n"",\n,""\n')).toEqual([
      ['a', 'b'],
      ['', ''],
      ['', ''],
    ]);
    expect(parseCsv('\ufeffa,b\n1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('skips blank lines and gives each record the line it starts on, and its raw text', () => {
    const text = 'h1,h2\n\n"a\nb",1\r\n\nc,2\n';
    const seen: [string[], number, string][] = [];
    forEachCsvRecord(text, 'f', (f, line, s, e) => seen.push([f, line, text.slice(s, e)]));
    expect(seen).toEqual([
      [['h1', 'h2'], 1, 'h1,h2'],
      [['a\nb', '1'], 3, '"a\nb",1'],
      [['c', '2'], 6, 'c,2'],
    ]);
  });

  it('names the line of malformed input', () => {
    expect(errorOf('a,b\n1,2\n"open,3\n4,5\n').message).toBe(
      'f.csv line 3: a quoted field is never closed (a quote inside a field must be doubled: "")',
    );
    expect(errorOf('a,b\n1,"x\ny","open\n').message).toMatch(
      /^f\.csv line 2: a quoted field \(opened on line 3\) is never closed/,
    );
    expect(errorOf('a,b\n1,x"y\n').message).toMatch(/^f\.csv line 2: a quote inside an unquoted field/);
    expect(errorOf('a,b\n"1"x,2\n').message).toMatch(/^f\.csv line 2: "x" after a closing quote/);
    expect(errorOf('a,b\n1,2\r3,4\n').message).toMatch(/^f\.csv line 2: a carriage return outside quotes/);
    expect(errorOf('a,b\n"q\n\nr",2\n1,x"\n').message).toMatch(/^f\.csv line 5: a quote inside/);
    expect(errorOf('a,b\n1,x"').code).toBe('INVALID_SPEC');
  });

  it('round-trips any fields written with csvRecord (property)', () => {
    const field = fc.oneof(
      fc.string(),
      fc.fullUnicodeString(),
      fc.constantFrom('', '"', ',', '\n', '\r\n', ' ", \r\n'),
    );
    const table = fc
      .integer({ min: 1, max: 5 })
      .chain((w) =>
        fc.array(fc.array(field, { minLength: w, maxLength: w }), { minLength: 1, maxLength: 20 }),
      );
    fc.assert(
      fc.property(table, fc.constantFrom('\n', '\r\n'), fc.boolean(), (rows, eol, trailing) => {
        // A record of one empty field is a blank line, which is skipped: not representable.
        const kept = rows.filter((r) => !(r.length === 1 && r[0] === ''));
        const text = kept.map(csvRecord).join(eol) + (trailing ? eol : '');
        expect(parseCsv(text)).toEqual(kept);
        const raw: string[] = [];
        forEachCsvRecord(text, 'f', (_f, _l, s, e) => raw.push(text.slice(s, e)));
        expect(raw).toEqual(kept.map(csvRecord));
      }),
      { numRuns: 300 },
    );
  });
});
