import { killGraceMs } from '../../../launcher/executors/local-processes';

describe('TRACK_LAUNCH_KILL_GRACE', () => {
  test('default 10 s; seconds, fractions allowed', () => {
    expect(killGraceMs({})).toBe(10_000);
    expect(killGraceMs({ TRACK_LAUNCH_KILL_GRACE: '2.5' })).toBe(2500);
    expect(killGraceMs({ TRACK_LAUNCH_KILL_GRACE: '0' })).toBe(0);
  });

  test.each(['-1', 'ten', '1e9', 'NaN'])('%s is refused with the variable named', (v) => {
    expect(() => killGraceMs({ TRACK_LAUNCH_KILL_GRACE: v })).toThrow(
      expect.objectContaining({
        code: 'INVALID_SPEC',
        message: expect.stringContaining('TRACK_LAUNCH_KILL_GRACE'),
      }),
    );
  });
});
