// The job index as `list` reads it: every entry in order, a damaged line counted, not fatal.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { jobIndexFile, readJobIndex } from '../../../core/rundir/job-index';

describe('readJobIndex', () => {
  let state: string;
  beforeEach(() => (state = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-unit-index-'))));
  afterEach(() => fs.rmSync(state, { recursive: true, force: true }));
  const env = () => ({ XDG_STATE_HOME: state });

  it('is empty before the first job', () => {
    expect(readJobIndex(env())).toEqual({ entries: [], malformed: 0 });
  });

  it('reads every entry oldest first and counts lines that are not entries', () => {
    const file = jobIndexFile(env());
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ job_id: '1', run_dir: '/r/a', executor: 'slurm', at: 10 }),
        '{"job_id": "2", "run_dir": "/r/b"', // torn write
        JSON.stringify({ job_id: 3 }),
        '',
        JSON.stringify({ job_id: 'local-x', run_dir: '/r/c', executor: 'local', at: 11 }),
      ].join('\n'),
    );
    const { entries, malformed } = readJobIndex(env());
    expect(entries.map((e) => [e.job_id, e.run_dir, e.executor, e.at])).toEqual([
      ['1', '/r/a', 'slurm', 10],
      ['local-x', '/r/c', 'local', 11],
    ]);
    expect(malformed).toBe(2);
  });
});
