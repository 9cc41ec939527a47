// UPDATE_GOLDEN=1 rewrites goldens locally, never under CI (where it would make every compare pass).
import { expectGolden, underCi } from './golden-helper';

describe('golden helper', () => {
  test('CI detection: set and not "0"/"false"/empty', () => {
    expect(underCi({ CI: 'true' })).toBe(true);
    expect(underCi({ CI: '1' })).toBe(true);
    expect(underCi({})).toBe(false);
    expect(underCi({ CI: '' })).toBe(false);
    expect(underCi({ CI: '0' })).toBe(false);
    expect(underCi({ CI: 'false' })).toBe(false);
  });

  test('UPDATE_GOLDEN=1 under CI throws before writing anything', () => {
    expect(() =>
      expectGolden('no-such-golden-under-ci.txt', 'x', { CI: 'true', UPDATE_GOLDEN: '1' }),
    ).toThrow(/UPDATE_GOLDEN=1 is refused under CI/);
  });
});
