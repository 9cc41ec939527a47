// What submit accepts for an option that is used again at the job's end, the job-end code can use:
// --artifact patterns go to the matcher (core/rundir/outside-files.ts, which compiles each glob part
// with partRegExp), --metrics-format to the tracking plugin's parserFor. Over the hostile corpus,
// malformed globs and regular expressions, and generated ones: accepted at submit <=> usable at the
// end; refused at submit: exit 2, the option named.
import * as fc from 'fast-check';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { findOutsideFiles, TrackLaunchError } from '../../../core';
import { hasMagic, partRegExp, patternParts } from '../../../core/rundir/glob';
import { SUBMIT_OPTIONS } from '../../../launcher/options/registry';
import { parserFor } from '../../../tracking-plugin/parsers';
import { generated, handCorpus, SEED } from '../../fixtures/hostile/corpus';

const CANARY = '/nonexistent/tl-canary';
const HOSTILE = [...handCorpus(CANARY), ...generated(CANARY, 300)];
const ctx = { cwd: '/w', checkMetricsFormat: (f: string) => void parserFor(f) };

/** The submit parser's verdict on one value: the value it keeps, or its error. */
function atSubmit(key: 'artifact' | 'metricsFormat', flag: string, value: string) {
  try {
    return { value: SUBMIT_OPTIONS[key].parse(key === 'artifact' ? [value] : value, flag, ctx) };
  } catch (err) {
    return { err };
  }
}

/** A refusal as the user sees it: a TrackLaunchError with exit 2 whose message starts with the option. */
function expectRefusal(err: unknown, flag: string) {
  expect(err).toBeInstanceOf(TrackLaunchError);
  const e = err as TrackLaunchError;
  expect({ exit: e.exitCode, named: e.message.startsWith(`--${flag}`) }).toEqual({ exit: 2, named: true });
}

describe('--artifact: accepted at submit <=> the job-end matcher can use it', () => {
  // A tree whose names every glob part below can meet, so that the matcher compiles each part.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-artifact-end-'));
  for (const d of ['a', 'z', '0', '9', '-', '[', ']', '!', 'x.y'])
    for (const f of ['a', 'z', '0', '9', '-', '[', ']', '!', 'x.y', 'a.pt']) {
      fs.mkdirSync(path.join(root, d), { recursive: true });
      fs.writeFileSync(path.join(root, d, f), 'x');
    }
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  /** Whether the matcher compiles every part it meets for `pattern` resolved in `dir`. */
  const matcherCompiles = (dir: string, pattern: string): boolean => {
    try {
      for (const part of patternParts(dir, pattern) ?? [])
        if (part !== '**' && hasMagic(part)) partRegExp(part);
      return true;
    } catch {
      return false;
    }
  };

  const check = (pattern: string) => {
    const r = atSubmit('artifact', 'artifact', pattern);
    if ('value' in r) {
      expect(r.value).toEqual([pattern]); // kept as given: the matcher re-parses it with partRegExp
      for (const dir of ['/w', '/', root, `${root}/a`])
        expect({ dir, ok: matcherCompiles(dir, pattern) }).toEqual({ dir, ok: true });
      expect(() => findOutsideFiles(root, pattern)).not.toThrow();
    } else {
      expectRefusal(r.err, 'artifact');
      // Refused only when the matcher would fail, or could find nothing (a part longer than any
      // file name): a relative pattern is matched as it is written.
      const tooLong = pattern.split('/').some((part) => Buffer.byteLength(part) > 255);
      if (pattern !== '' && !pattern.includes('\0') && !path.isAbsolute(pattern))
        expect({ pattern, unusable: tooLong || !matcherCompiles('/w', pattern) }).toEqual({
          pattern,
          unusable: true,
        });
    }
  };

  test('malformed globs: ranges out of order refused, the rest usable', () => {
    const refused = [
      '[z-a]*',
      'a/[z-a]/b',
      'out/**/[9-0].pt',
      `${root}/[z-a]`,
      '[!z-a]',
      '[\\-!]x',
      '[a-\\]',
      '[--!]',
      'x'.repeat(256),
    ];
    const usable = ['[', ']', '[!]', '[]]', '[a-', '[^-^]', '[b-a', 'a[', '**', '*/[a-z]?/**', '[[]', '[]-]'];
    for (const p of [...refused, ...usable]) check(p);
    expect(refused.filter((p) => 'value' in atSubmit('artifact', 'artifact', p))).toEqual([]);
    expect(usable.filter((p) => 'err' in atSubmit('artifact', 'artifact', p))).toEqual([]);
  });

  test('the hostile corpus', () => {
    for (const p of HOSTILE) check(p);
  });

  test('generated globs', () => {
    const part = fc.constantFrom(
      '[',
      ']',
      '!',
      '^',
      '-',
      '*',
      '?',
      '/',
      'a',
      'z',
      '0',
      '9',
      '\\',
      '.',
      '**',
      '..',
    );
    fc.assert(
      fc.property(
        fc.array(part, { minLength: 1, maxLength: 10 }).map((ps) => ps.join('')),
        (p) => check(p),
      ),
      { seed: SEED, numRuns: 2000 },
    );
  });
});

describe('--metrics-format: accepted at submit <=> the job-end parserFor takes it', () => {
  const check = (format: string) => {
    const r = atSubmit('metricsFormat', 'metrics-format', format);
    let end: unknown;
    try {
      parserFor(format);
    } catch (err) {
      end = err;
    }
    if ('value' in r) {
      expect({ format, end }).toEqual({ format, end: undefined });
      expect(r.value).toBe(format); // what job.json records, and the end reads
    } else {
      expectRefusal(r.err, 'metrics-format');
      // Refused by the tracking plugin's own parser (or, for a control character, before it).
      if (!/[\0\n\r]/.test(format)) expect({ format, end: end !== undefined }).toEqual({ format, end: true });
    }
  };

  test('malformed regular expressions and the hostile corpus after regex:', () => {
    const malformed = [
      '(',
      '(?<loss>[z-a])',
      '(?<loss>\\S+',
      '(?<1x>a)',
      '[',
      '(?<loss>a)(?<loss>b)',
      '\\',
      '*',
    ];
    for (const s of [...malformed, ...HOSTILE]) check(`regex:${s}`);
    expect(
      malformed.filter((s) => 'value' in atSubmit('metricsFormat', 'metrics-format', `regex:${s}`)),
    ).toEqual([]);
    check('regex:step=(?<step>\\d+) loss=(?<loss>\\S+)');
    expect(
      atSubmit('metricsFormat', 'metrics-format', 'regex:step=(?<step>\\d+) loss=(?<loss>\\S+)'),
    ).toHaveProperty('value');
  });

  test('generated regular expressions with a named group', () => {
    const piece = fc.constantFrom(
      '(',
      ')',
      '[',
      ']',
      '-',
      'z',
      'a',
      '\\',
      'd',
      '+',
      '*',
      '?',
      '{',
      '}',
      '<',
      '>',
      '|',
      '^',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 8 }).map((ps) => `regex:(?<loss>${ps.join('')})`),
        (f) => check(f),
      ),
      { seed: SEED, numRuns: 2000 },
    );
  });
});
