// --sbatch read as sbatch reads #SBATCH lines, and written in full: what is checked is what runs.
import { sbatchWords } from '../../../launcher/options/sbatch-words';
import { sbatchDirectives } from '../../../launcher/plan/render-sbatch';
import { spec } from './specs';

const rendered = (o: string) => spec({ sbatch: [o], command: ['x'] }).sbatch[0];

describe('--sbatch', () => {
  test.each([
    ['--mail-type=END', '--mail-type=END'],
    ['--mail-t=END', '--mail-type=END'], // a unique prefix, resolved as getopt_long does
    ['--mail-type END', '--mail-type=END'],
    ['-b now+1hour', '--begin=now+1hour'],
    ['-bnow', '--begin=now'],
    ['-H', '--hold'],
    ['--comment="run 3 of 5"', '--comment="run 3 of 5"'],
    ["--comment='a#b'", '--comment="a#b"'],
    [`--comment='say "hi"'`, '--comment="say \\"hi\\""'],
    ['--get-user-env', '--get-user-env'],
    ['--get-user-env=10L', '--get-user-env=10L'],
  ])('%s is written as %s', (given, line) => expect(rendered(given)).toBe(line));

  test('the written line splits back into the value that was checked', () => {
    for (const v of ['run 3 of 5', 'a#b', `it's "x"`, 'back\\slash']) {
      const line = rendered(`--comment=${v.replace(/[\s"'\\#]/g, (c) => `\\${c}`)}`);
      expect(sbatchWords(line)).toEqual([`--comment=${v}`]);
    }
  });

  test('rendered after the declared options', () => {
    const s = spec({ sbatch: ['--mail-t=END'], command: ['x'] });
    expect(sbatchDirectives(s).slice(-1)).toEqual(['#SBATCH --mail-type=END']);
  });
});
