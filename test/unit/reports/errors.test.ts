// What the user is told when there is nothing (or something malformed) to report.
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError } from '../../../core/errors';
import { parseEvaluation } from '../../../reports/load/evaluation';
import { parseFormats, renderComparison, renderReport } from '../../../reports/report';
import { POLYNOMIAL_3, tmpDir } from './helpers/check-output';

async function failure(p: Promise<unknown>): Promise<TrackLaunchError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TrackLaunchError);
  return err as TrackLaunchError;
}

describe('report errors', () => {
  it('an empty run dir is a REPORT error naming the dir', async () => {
    const dir = tmpDir('empty');
    const err = await failure(renderReport(dir));
    expect(err.code).toBe('REPORT');
    expect(err.message).toContain(dir);
    expect(err.hint).toMatch(/run directory/);
  });

  it('a missing dir is NOT_FOUND', async () => {
    expect((await failure(renderReport('/nonexistent/run-dir'))).code).toBe('NOT_FOUND');
  });

  it('a job.json of another version is a RUN_DIR error saying which version is read', async () => {
    const dir = tmpDir('v2');
    fs.writeFileSync(path.join(dir, 'job.json'), JSON.stringify({ version: 2 }));
    const err = await failure(renderReport(dir));
    expect(err.code).toBe('RUN_DIR');
    expect(err.message).toMatch(/version 2.*reads version 1/);
  });

  it('malformed evaluation data names the file and the field', () => {
    const f = 'eval/evaluation.json';
    const msg = (v: unknown) => {
      try {
        parseEvaluation(v, f);
      } catch (e) {
        expect((e as TrackLaunchError).code).toBe('RUN_DIR');
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(msg({ version: 1, x: [1, 2], f: [1], g: [1, 2] })).toMatch(
      /eval\/evaluation\.json: "x", "f" and "g" .* same length \(got 2, 1, 2\)/,
    );
    expect(msg({ version: 1, x: [1], f: ['a'], g: [1] })).toMatch(/"f" must be an array of numbers/);
    expect(msg({ version: 3, x: [1], f: [1], g: [1] })).toMatch(/version 3/);
    expect(msg({ version: 1, x: [1], f: [1], g: [1], train_x: [1] })).toMatch(/train_x.*train_y/);
    expect(msg({ version: 1, x: [1], f: [1], g: [1], train_range: [1] })).toMatch(/train_range/);
    expect(msg({ version: 1, x: [1], f: [1], g: [1] })).toBe('no error');
  });

  it('--format accepts pdf, png, html and lists of them; anything else names the allowed values', () => {
    expect(parseFormats('pdf,png')).toEqual(['pdf', 'png']);
    expect(parseFormats(' PNG ')).toEqual(['png']);
    expect(parseFormats('html,pdf,html')).toEqual(['html', 'pdf']);
    expect(() => parseFormats('svg')).toThrow(
      /--format: "svg" is not valid; use one or more of pdf, png, html, comma-separated/,
    );
    expect(() => parseFormats('')).toThrow(TrackLaunchError);
  });

  it('--compare needs two jobs', async () => {
    expect((await failure(renderComparison([POLYNOMIAL_3]))).code).toBe('INVALID_SPEC');
  });
});
