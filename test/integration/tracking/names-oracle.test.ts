// MLflow's own validator (mlflow.utils.validation, the code the server runs) is the oracle for
// tracking-plugin/mlflow/names.ts: isValidName never passes a name it refuses (and agrees with it on
// ASCII and the awkward names scripts use), and every name mlflowName sends is one it accepts.
import { execFileSync } from 'child_process';
import fc from 'fast-check';
import { isValidName, mlflowName } from '../../../tracking-plugin/mlflow/names';
import { mlflowPython } from './server';

jest.setTimeout(60_000);

const ORACLE = `
import json, sys
from mlflow.utils.validation import _validate_metric_name, _validate_param_name, _validate_tag_name
out = []
for name in json.load(sys.stdin):
    ok = True
    for check in (_validate_metric_name, _validate_param_name, _validate_tag_name):
        try:
            check(name)
        except Exception:
            ok = False
    out.append(ok and 0 < len(name) <= 250)
print(json.dumps(out))
`;
const accepted = (names: string[]): boolean[] =>
  JSON.parse(
    execFileSync(mlflowPython(), ['-c', ORACLE], { input: JSON.stringify(names), encoding: 'utf8' }),
  );

const AWKWARD = [
  'acc@1',
  'top-1 acc (%)',
  'loss[val]',
  'λ',
  'a/../b',
  '/abs',
  'x/',
  '..',
  '.',
  'a//b',
  'ok/x',
  'é',
  'tab\there',
  'x'.repeat(250),
  'x'.repeat(251), // too long: mapped with a hash
  'w'.repeat(246) + '/mean',
  'w'.repeat(260) + '@1',
];

test('isValidName agrees with MLflow, and every mapped name is accepted by it', () => {
  const random = fc.sample(fc.fullUnicodeString({ maxLength: 40 }), { numRuns: 400, seed: 42 });
  const ascii = fc.sample(fc.stringOf(fc.constantFrom(...'ab/.-_ :@%()[]\\'.split('')), { maxLength: 8 }), {
    numRuns: 400,
    seed: 7,
  });
  const names = [...AWKWARD, ...random, ...ascii].filter((n) => n.length > 0);
  const verdicts = accepted(names);
  expect(names.filter((n, i) => isValidName(n) && !verdicts[i])).toEqual([]);
  const exact = [...AWKWARD, ...ascii].filter((n) => n.length > 0);
  const exactVerdicts = accepted(exact);
  expect(exact.filter((n, i) => isValidName(n) !== exactVerdicts[i])).toEqual([]);
  // Only a name with no letter or digit at all is skipped.
  expect(names.filter((n) => /[A-Za-z0-9]/.test(n) && mlflowName(n) === undefined)).toEqual([]);
  const mapped = names.map(mlflowName).filter((m): m is string => m !== undefined);
  const mappedVerdicts = accepted(mapped);
  expect(mapped.filter((_, i) => !mappedVerdicts[i])).toEqual([]);
});
