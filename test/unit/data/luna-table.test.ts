import { parseAnnotations, parseCandidates } from '../../../data/luna-table';
import { TrackLaunchError } from '../../../core/errors';

const HEAD = 'seriesuid,coordX,coordY,coordZ,class\n';

function err(fn: () => unknown): TrackLaunchError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(TrackLaunchError);
    expect((e as TrackLaunchError).exitCode).toBe(2);
    return e as TrackLaunchError;
  }
  throw new Error('no error');
}

describe('candidates.csv', () => {
  it('keeps raw rows, extra columns, series in order of appearance, classes', () => {
    const t = parseCandidates(
      'extra,seriesuid,coordX,coordY,coordZ,class\r\nq,"1.2",-1.5,2,3e1,0\r\n"x,y",1.3,4,5,6,1\r\nz,1.2,7,8,9,1.0\r\n',
    );
    expect(t.columns).toEqual(['extra', 'seriesuid', 'coordX', 'coordY', 'coordZ', 'class']);
    expect(t.rows).toEqual(['q,"1.2",-1.5,2,3e1,0', '"x,y",1.3,4,5,6,1', 'z,1.2,7,8,9,1.0']);
    expect(t.seriesIds).toEqual(['1.2', '1.3']);
    expect(Array.from(t.seriesOfRow)).toEqual([0, 1, 0]);
    expect(Array.from(t.positive)).toEqual([0, 1, 1]);
    expect(Array.from(t.lines)).toEqual([2, 3, 4]);
  });

  it('names the missing columns', () => {
    expect(err(() => parseCandidates('seriesuid,coordX,coordY\n1,2,3\n', 'c.csv')).message).toBe(
      'c.csv line 1: missing column(s) coordZ, class; the header has "seriesuid", "coordX", "coordY", LUNA16 candidates.csv has seriesuid,coordX,coordY,coordZ,class',
    );
    expect(err(() => parseCandidates('', 'c.csv')).message).toMatch(/^c\.csv line 1: the file is empty/);
    expect(err(() => parseCandidates('seriesuid,coordX,coordX,coordY,coordZ,class\n')).message).toMatch(
      /names column "coordX" twice/,
    );
  });

  it('names the line and value of a wrong type', () => {
    expect(err(() => parseCandidates(HEAD + 'a,1,2,3,0\na,1,2,abc,0\n', 'c.csv')).message).toBe(
      'c.csv line 3: coordZ "abc" is not a number',
    );
    expect(err(() => parseCandidates(HEAD + 'a,1,2,3,2\n', 'c.csv')).message).toBe(
      'c.csv line 2: class "2" is not 0 or 1',
    );
    expect(err(() => parseCandidates(HEAD + 'a,1,2,3,\n', 'c.csv')).message).toBe(
      'c.csv line 2: class "" is not 0 or 1',
    );
    expect(err(() => parseCandidates(HEAD + 'a,,2,3,0\n', 'c.csv')).message).toBe(
      'c.csv line 2: coordX "" is not a number',
    );
    expect(err(() => parseCandidates(HEAD + 'a,1e999,2,3,0\n', 'c.csv')).message).toBe(
      'c.csv line 2: coordX "1e999" is not a number',
    );
    expect(err(() => parseCandidates(HEAD + 'a,0x10,2,3,0\n', 'c.csv')).message).toBe(
      'c.csv line 2: coordX "0x10" is not a number',
    );
    expect(err(() => parseCandidates(HEAD + ' ,1,2,3,0\n', 'c.csv')).message).toBe(
      'c.csv line 2: seriesuid is empty',
    );
    expect(err(() => parseCandidates(HEAD + 'a,1,2,3\n', 'c.csv')).message).toBe(
      'c.csv line 2: 4 field(s), but the header has 5 (seriesuid,coordX,coordY,coordZ,class)',
    );
  });

  it('refuses duplicate rows, naming both lines, the same coordinates however written', () => {
    const e = err(() =>
      parseCandidates(HEAD + 'a,1,2,3,0\nb,1,2,3,0\n"multi\nline",0,0,0,0\na,1.0,2,3e0,0\n', 'c.csv'),
    );
    expect(e.message).toBe('c.csv line 6: duplicate row: the same seriesuid and coordinates as line 2');
    expect(e.details).toMatchObject({ file: 'c.csv', line: 6, duplicate_of_line: 2 });
    expect(err(() => parseCandidates(HEAD + 'a,1,2,3,0\na,1,2,3,1\n', 'c.csv')).message).toBe(
      'c.csv line 3: duplicate row: the same seriesuid and coordinates as line 2 (with a different class: 0 there, 1 here)',
    );
    expect(err(() => parseCandidates(HEAD + 'a,-0,2,3,0\na,0,2,3,0\n')).message).toMatch(
      /line 3: duplicate row/,
    );
    // Thousands of distinct rows (the hash table grows) still pass.
    const rows = Array.from(
      { length: 20000 },
      (_, i) => `s${i % 7},${i},${i % 13},${-i},${i % 400 === 0 ? 1 : 0}`,
    );
    expect(parseCandidates(HEAD + rows.join('\n')).rows).toHaveLength(20000);
    expect(err(() => parseCandidates(HEAD + rows.join('\n') + '\ns3,10,10,-10,0\n')).message).toMatch(
      /line 20002: duplicate row: .* as line 12$/,
    );
  });
});

describe('annotations.csv', () => {
  it('checks columns and types', () => {
    const t = parseAnnotations('seriesuid,coordX,coordY,coordZ,diameter_mm\na,1,2,3,5.5\n');
    expect(t.rows).toEqual(['a,1,2,3,5.5']);
    expect(err(() => parseAnnotations('seriesuid,coordX,coordY,coordZ\n', 'a.csv')).message).toMatch(
      /^a\.csv line 1: missing column\(s\) diameter_mm/,
    );
    expect(
      err(() => parseAnnotations('seriesuid,coordX,coordY,coordZ,diameter_mm\na,1,2,3,-1\n', 'a.csv'))
        .message,
    ).toBe('a.csv line 2: diameter_mm "-1" is not a number >= 0');
  });
});
