import { spawnSync } from 'child_process';
import * as fc from 'fast-check';
import { quote } from '../../../launcher/shell/quote';

/** Have bash parse the words and print each argument NUL-terminated. */
function bashArgs(line: string): string[] {
  const r = spawnSync('bash', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.split('\0').slice(0, -1);
}

describe('quote()', () => {
  test('any string without NUL reaches bash byte-exact as one word', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.fullUnicodeString().filter((s) => !s.includes('\0')),
          { minLength: 1, maxLength: 4 },
        ),
        (args) => {
          expect(bashArgs(args.map(quote).join(' '))).toEqual(args);
        },
      ),
      { numRuns: 150 },
    );
  });

  test('hostile strings stay literal', () => {
    const hostile = [
      "'",
      '"',
      '$(id)',
      '`id`',
      '; rm -rf ~',
      '*',
      '~',
      '\n',
      '-n',
      '',
      ' ',
      '$HOME',
      '\\',
      '!!',
      '{a,b}',
    ];
    expect(bashArgs(hostile.map(quote).join(' '))).toEqual(hostile);
  });

  test('plain words are left bare', () => {
    expect(quote('train.py')).toBe('train.py');
    expect(quote('--lr=0.1')).toBe('--lr=0.1');
  });
});
