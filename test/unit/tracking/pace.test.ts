// The pace a measure gives (tracking-plugin/ingest/pace.ts), how long it is used, and what is
// accepted as a kept record (the file is in the user's state directory, read as untrusted input).
import {
  describePace,
  HIGH,
  isFresh,
  LOW,
  MAX_AGE_MS,
  paceOf,
  parsePace,
  THRESHOLD,
} from '../../../tracking-plugin/ingest/pace';

const day = 24 * 3600 * 1000;

test('HIGH in flight from the threshold up, one below it', () => {
  expect(paceOf(THRESHOLD, 5).limit).toBe(HIGH);
  expect(paceOf(THRESHOLD - 1e-9, 5).limit).toBe(LOW);
  expect(paceOf(0.9, 5)).toEqual({ version: 1, limit: LOW, ratio: 0.9, measured_at: 5 });
  expect(paceOf(2.1, 5).limit).toBe(HIGH);
});

test('a measure is used for a day, not before it was taken', () => {
  const t = Date.UTC(2026, 11, 5, 10);
  const p = paceOf(1.8, t);
  expect(MAX_AGE_MS).toBe(day);
  expect(isFresh(p, t)).toBe(true);
  expect(isFresh(p, t + day - 1)).toBe(true);
  expect(isFresh(p, t + day)).toBe(false);
  expect(isFresh(p, t - 1)).toBe(false); // a clock set back, or a record from elsewhere
});

test('a record is accepted only whole, and only with the limit its ratio gives', () => {
  const good = { version: 1, limit: LOW, ratio: 1.1, measured_at: 1_700_000_000_000 };
  expect(parsePace(good)).toEqual(good);
  expect(parsePace({ ...good, extra: 'ignored' })).toEqual(good);
  for (const bad of [
    null,
    'x',
    [],
    { ...good, version: 2 },
    { ...good, limit: 2 },
    { ...good, limit: HIGH }, // 1.1 gives LOW
    { ...good, ratio: 0 },
    { ...good, ratio: -1 },
    { ...good, ratio: '1.1' },
    { ...good, ratio: Infinity },
    { ...good, measured_at: NaN },
    { ...good, measured_at: undefined },
  ])
    expect(parsePace(bad)).toBeUndefined();
});

test('said in words, with the measure and its time', () => {
  const t = Date.UTC(2026, 11, 5, 10, 30);
  expect(describePace(paceOf(1.04, t))).toBe(
    `1 request in flight (${HIGH} in flight answered 1.04x as fast as 1, measured 2026-12-05T10:30:00.000Z)`,
  );
  expect(describePace(paceOf(1.9, t))).toMatch(/^4 requests in flight \(4 in flight answered 1\.90x/);
});
