// Names longer than MLflow keeps (250 characters) reach the sender whole, and the sender maps them to
// a stable, distinct, valid name (a hash of the whole): never dropped, never cut into another's name.
import fc from 'fast-check';
import { NameMapper, nameTagKey } from '../../../tracking-plugin/ingest/names-map';
import { isValidName, MAX_KEY_LENGTH, mlflowName } from '../../../tracking-plugin/mlflow/names';
import { metricsOut } from '../../../tracking-plugin/parsers/out';
import { parserFor } from '../../../tracking-plugin/parsers';

const prefix = (n: number) => 'model.layers.' + 'x'.repeat(n - 'model.layers.'.length);

/** The keys one line gives, by parseInto and (where the parser has it) parseBytes. */
function keysOf(format: string, line: string): string[][] {
  const parser = parserFor(format);
  const out = metricsOut();
  parser.parseInto(line, out);
  const got = [out.keys.slice(0, out.n)];
  if (parser.parseBytes) {
    const b = metricsOut();
    const buf = Buffer.from(line + '\n');
    if (parser.parseBytes(buf, 0, buf.length - 1, b)) got.push(b.keys.slice(0, b.n));
  }
  return got;
}

test('a 245-character jsonl key is parsed (MLflow takes it as it is), and so is a 300-character one', () => {
  for (const n of [245, 300]) {
    const key = prefix(n);
    const line = JSON.stringify({ track_launch: 1, step: 1, metrics: { [key]: 0.5, loss: 1 } });
    for (const keys of keysOf('jsonl', line)) expect(keys).toEqual([key, 'loss']);
  }
  expect(mlflowName(prefix(245))).toBe(prefix(245));
});

test('regex: two 260-character keys that differ only at the end stay two keys', () => {
  const [w, b] = [prefix(250) + '.weight.grad_norm', prefix(252) + '.bias.grad_norm'];
  const format = 'regex:(?<key>\\S+)=(?<value>\\S+)';
  expect(keysOf(format, `${w}=1`)).toEqual([[w]]);
  expect(keysOf(format, `${b}=2`)).toEqual([[b]]);
  const [mw, mb] = [mlflowName(w)!, mlflowName(b)!];
  expect(mw).not.toBe(mb);
  for (const m of [mw, mb]) expect(isValidName(m)).toBe(true);
});

/** A name with its derived names: the parent's aggregates and the system metrics' prefix. */
const family = (n: string) => [n, `${n}/mean`, `${n}/min`, `${n}/max`, `system/${n}`];

test('distinct names, at every length up to 400 and with their derived names, stay distinct and valid', () => {
  const tail = fc.stringOf(fc.constantFrom('a', 'b', '.', '_', '/', '@', ' ', 'é', '1'), { maxLength: 6 });
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 400 }),
      fc.uniqueArray(tail, { minLength: 2, maxLength: 8 }),
      (len, tails) => {
        // names that share their first `len` characters and differ only after them
        const names = [...new Set(tails.flatMap((t) => family(prefix(Math.max(len, 14)) + t)))];
        const sent = names.map(mlflowName);
        const kept = sent.filter((m): m is string => m !== undefined);
        expect(kept.length).toBe(names.length); // none dropped: each has letters
        expect(new Set(kept).size).toBe(kept.length);
        for (const [i, m] of kept.entries()) {
          expect(isValidName(m)).toBe(true);
          expect(m.length).toBeLessThanOrEqual(MAX_KEY_LENGTH);
          if (isValidName(names[i])) expect(m).toBe(names[i]);
          expect(mlflowName(names[i])).toBe(m); // stable
        }
      },
    ),
    { numRuns: 2000 },
  );
});

test('the sender sends a long name under its mapped name, the original in a tag', () => {
  const long = prefix(300);
  const m = new NameMapper().map({ metrics: [{ key: long, value: 1, step: 0, timestamp: 1 }] });
  const sent = m.renamed.get(long)!;
  expect(m.metrics.map((p) => p.key)).toEqual([sent]);
  expect(sent.length).toBeLessThanOrEqual(MAX_KEY_LENGTH);
  expect(isValidName(nameTagKey(sent))).toBe(true);
  expect(m.unusable).toEqual([]);
});
