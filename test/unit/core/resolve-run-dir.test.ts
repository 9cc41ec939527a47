// resolveRunDir: the one rule every command uses for "job id or run directory".
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { resolveRunDir } from '../../../core/rundir/job-index';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tl-resolve-'));

describe('resolveRunDir', () => {
  const saved = process.env.XDG_STATE_HOME;
  let state: string;
  beforeEach(() => {
    state = tmp();
    process.env.XDG_STATE_HOME = state;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = saved;
  });
  const index = (...lines: Array<{ job_id: string; run_dir: string }>) => {
    fs.mkdirSync(path.join(state, 'track-launch'), { recursive: true });
    fs.writeFileSync(
      path.join(state, 'track-launch', 'jobs.jsonl'),
      lines.map((l) => JSON.stringify({ ...l, executor: 'slurm', at: 0 }) + '\n').join(''),
    );
  };
  const runDir = (withJob = true) => {
    const d = tmp();
    if (withJob) fs.writeFileSync(path.join(d, 'job.json'), '{}');
    else fs.mkdirSync(path.join(d, 'logs'));
    return d;
  };

  it('takes a path holding job.json, or (hand-made) logs/, resolved from cwd', () => {
    const d = runDir();
    expect(resolveRunDir(path.basename(d), path.dirname(d))).toBe(d);
    const bare = runDir(false);
    expect(resolveRunDir(bare)).toBe(bare);
  });

  it('looks a job id up in the index: the newest entry whose run dir still holds job.json wins', () => {
    const [old, newer, gone] = [runDir(), runDir(), path.join(tmp(), 'removed')];
    index({ job_id: '17', run_dir: old }, { job_id: '17', run_dir: newer }, { job_id: '17', run_dir: gone });
    expect(resolveRunDir('17')).toBe(newer);
  });

  it('NOT_FOUND, worded for a job id or for a path', () => {
    index({ job_id: '17', run_dir: runDir() });
    expect(() => resolveRunDir('18')).toThrow(/no run directory is recorded for job 18/);
    expect(() => resolveRunDir('local-abc')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    const empty = tmp();
    expect(() => resolveRunDir(empty)).toThrow(/is not a run directory .* and not a job id/);
  });
});
