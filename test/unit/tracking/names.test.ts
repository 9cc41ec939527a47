// Metric, param and tag names checked and mapped before sending (tracking-plugin/mlflow/names.ts).
// MLflow's own validator is the oracle in test/integration/tracking/names-oracle.test.ts; here the
// properties: valid names pass untouched, mapped names are valid, stable and distinct.
import fc from 'fast-check';
import { isValidName, MAX_KEY_LENGTH, mlflowName } from '../../../tracking-plugin/mlflow/names';

test('ordinary training names', () => {
  for (const ok of ['loss', 'trn/loss', 'val loss', 'lr-0.1', 'epoch:1', 'λ', 'top_1', 'a.b'])
    expect([ok, mlflowName(ok)]).toEqual([ok, ok]);
  for (const bad of ['acc@1', 'top-1 acc (%)', 'loss[val]', 'a/../b', '/abs', 'x/', '..', '.', 'a//b', ''])
    expect([bad, isValidName(bad)]).toEqual([bad, false]);
  expect(mlflowName('acc@1')).toMatch(/^acc_1_[0-9a-f]{6}$/);
  expect(mlflowName('top-1 acc (%)')).toMatch(/^top-1 acc ____[0-9a-f]{6}$/);
  expect(mlflowName('@@@')).toBeUndefined(); // nothing usable in it: skipped and counted
  expect(mlflowName('x'.repeat(MAX_KEY_LENGTH + 1))!.length).toBeLessThanOrEqual(MAX_KEY_LENGTH);
});

test('every mapped name is valid, and the same input always maps the same way', () => {
  fc.assert(
    fc.property(fc.fullUnicodeString({ maxLength: 300 }), (name) => {
      const m = mlflowName(name);
      if (m !== undefined) expect(isValidName(m)).toBe(true);
      expect(mlflowName(name)).toBe(m);
      if (isValidName(name)) expect(m).toBe(name);
    }),
    { numRuns: 3000 },
  );
});

test('distinct originals never share a mapped name', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.string({ maxLength: 12 }), { minLength: 2, maxLength: 40 }), (names) => {
      const mapped = names.map(mlflowName).filter((m): m is string => m !== undefined);
      expect(new Set(mapped).size).toBe(mapped.length);
    }),
    { numRuns: 500 },
  );
});
