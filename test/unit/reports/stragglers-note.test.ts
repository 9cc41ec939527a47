// The note for an empty stragglers page says why: no line times at all, or lines all written at once.
import * as fs from 'fs';
import * as path from 'path';
import { loadReportData } from '../../../reports/load/run-dir';
import { reportFigures } from '../../../reports/specs/figures';
import { POLYNOMIAL_3, tmpDir } from './helpers/check-output';

/** The fixture's rank logs, each line of each given the same time when `sameTime` is set. */
function logsOnly(sameTime?: string): string {
  const dir = tmpDir('stragglers-note');
  fs.mkdirSync(path.join(dir, 'logs'));
  for (const r of [0, 1, 2]) {
    const text = fs.readFileSync(path.join(POLYNOMIAL_3, 'logs', `rank-${r}.out`), 'utf8');
    fs.writeFileSync(path.join(dir, 'logs', `rank-${r}.out`), text);
    if (sameTime !== undefined)
      fs.writeFileSync(
        path.join(dir, 'logs', `rank-${r}.out.ts`),
        `${sameTime}\n`.repeat(text.split('\n').length - 1),
      );
  }
  return dir;
}

const notesOf = async (dir: string) => reportFigures(await loadReportData(dir)).notes.join('\n');

it('no logs/rank-R.out.ts: the note asks for it', async () => {
  expect(await notesOf(logsOnly())).toMatch(
    /No line times: the stragglers page is empty\. It needs logs\/rank-R\.out\.ts/,
  );
});

it('logs/rank-R.out.ts there, every line at one time: the note does not say it is missing', async () => {
  const notes = await notesOf(logsOnly('1764669000.250000'));
  expect(notes).not.toMatch(/needs logs\/rank-R\.out\.ts|No line times/);
  expect(notes).toMatch(/logged its steps at one time .*the stragglers page is empty/);
});
