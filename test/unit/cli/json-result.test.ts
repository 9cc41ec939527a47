// --json: a command that has a result and then fails (ingest with points still pending) writes one
// JSON document to stdout, the result with its `error`, not the result and then a second document.
import { TrackLaunchError } from '../../../core/errors';
import { printJsonResult, reportError } from '../../../cli/output';

function stdoutOf(fn: () => void): string {
  const chunks: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => {
    chunks.push(String(c));
    return true;
  });
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return chunks.join('');
}

test('a result that ends in an error: one document with the error in it, and the exit code', () => {
  const err = new TrackLaunchError('TRACKING', '5 of 100 points are not in MLflow yet', { hint: 'run sync' });
  let code = 0;
  const out = stdoutOf(() => {
    printJsonResult({ pointsSent: 95, pending: 5 }, err);
    code = reportError(err, true);
  });
  expect(JSON.parse(out)).toEqual({
    pointsSent: 95,
    pending: 5,
    error: {
      code: 'TRACKING',
      message: '5 of 100 points are not in MLflow yet',
      hint: 'run sync',
      details: {},
    },
  });
  expect(code).toBe(6);
});

test('a result with no error, and an error with no result: one document each', () => {
  expect(JSON.parse(stdoutOf(() => printJsonResult({ complete: true })))).toEqual({ complete: true });
  const other = new TrackLaunchError('USAGE', 'bad option');
  expect(JSON.parse(stdoutOf(() => reportError(other, true)))).toMatchObject({
    error: { code: 'USAGE', message: 'bad option' },
  });
});
