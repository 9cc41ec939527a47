// list's pure parts: which index entries, in which order, and the table; the MLflow link.
import type { JobIndexEntry } from '../../../core/rundir/job-index';
import { nameMatcher, newestFirst, parseLimit, parseStates } from '../../../cli/list/filter';
import { formatJobTable, formatStarted, shownDir } from '../../../cli/list/format';
import type { JobRow } from '../../../cli/list/row';
import { experimentUrl, runUrl } from '../../../cli/mlflow-link';

const entry = (job_id: string, run_dir: string, at: number): JobIndexEntry => ({
  job_id,
  run_dir,
  executor: 'slurm',
  at,
});

describe('newestFirst', () => {
  it('orders newest first and keeps one line per job and run directory', () => {
    const out = newestFirst([
      entry('1', '/r/a', 1),
      entry('2', '/r/b', 2),
      entry('1', '/r/a', 3),
      entry('1', '/r/c', 4),
    ]);
    expect(out.map((e) => `${e.job_id}@${e.run_dir}:${e.at}`)).toEqual(['1@/r/c:4', '1@/r/a:3', '2@/r/b:2']);
  });
});

describe('parseStates', () => {
  it("takes Slurm's names and short codes in any case, and GONE", () => {
    expect([...(parseStates('running, cd,Failed,gone') ?? [])]).toEqual([
      'RUNNING',
      'COMPLETED',
      'FAILED',
      'GONE',
    ]);
    expect(parseStates(undefined)).toBeUndefined();
    expect(parseStates(' , ')).toBeUndefined();
  });
  it('refuses an unknown state, naming the option and what is allowed', () => {
    expect(() => parseStates('running,finished')).toThrow(
      /--state: "finished" is not valid; use Slurm's job state names/,
    );
  });
});

describe('nameMatcher', () => {
  it('matches a substring in any case', () => {
    const m = nameMatcher('Poly');
    expect(['polynomial', 'my-poly-fit', 'luna'].filter(m)).toEqual(['polynomial', 'my-poly-fit']);
  });
  it('matches a glob against the whole name', () => {
    const m = nameMatcher('luna-*');
    expect(['luna-3', 'luna-', 'my-luna-3', 'luna'].filter(m)).toEqual(['luna-3', 'luna-']);
    expect(['a1', 'ab', 'a12'].filter(nameMatcher('a[0-9]'))).toEqual(['a1']);
    expect(['a1', 'ab'].filter(nameMatcher('a[!0-9]'))).toEqual(['ab']);
    // a dot is a dot, not any character
    expect(['x.y', 'xzy'].filter(nameMatcher('x.?'))).toEqual(['x.y']);
    expect(['x.y', 'xzy', 'x.'].filter(nameMatcher('x.*'))).toEqual(['x.y', 'x.']);
  });
  it('matches everything without a pattern', () => {
    expect(nameMatcher(undefined)('anything')).toBe(true);
  });
});

describe('parseLimit', () => {
  it('takes whole numbers from 1', () => {
    expect(parseLimit(5)).toBe(5);
    expect(() => parseLimit(0)).toThrow(/--limit: 0 is not valid/);
    expect(() => parseLimit(2.5)).toThrow(/--limit/);
  });
});

const row = (over: Partial<JobRow>): JobRow => ({
  job_id: '42',
  name: 'poly',
  state: 'COMPLETED',
  executor: 'slurm',
  nodes: 3,
  nodelist: 'tlnode[1-3]',
  started_at: null,
  run_dir: '/home/u/runs/poly-1',
  mlflow_url: null,
  ...over,
});

describe('formatJobTable', () => {
  it('aligns the columns and says which run directories are gone', () => {
    const out = formatJobTable(
      [
        row({ mlflow_url: 'http://m:5000/#/experiments/1/runs/abc' }),
        row({ job_id: 'local-7', name: null, state: 'GONE', nodes: null, nodelist: null, run_dir: '/tmp/x' }),
      ],
      '/home/u',
    ).split('\n');
    expect(out[0]).toMatch(/^JOB\s+NAME\s+STATE\s+NODES\s+STARTED\s+RUN DIR\s+MLFLOW$/);
    expect(out[1]).toMatch(
      /^42\s+poly\s+COMPLETED\s+3 tlnode\[1-3\]\s+-\s+runs\/poly-1\s+http:\/\/m:5000\/#\/experiments\/1\/runs\/abc$/,
    );
    expect(out[2]).toMatch(/^local-7\s+-\s+GONE \(run dir removed\)\s+-\s+-\s+\/tmp\/x\s+-$/);
    expect(out[1].indexOf('COMPLETED')).toBe(out[2].indexOf('GONE'));
  });
  it('says when there is nothing to list', () => {
    expect(formatJobTable([], '/')).toMatch(/No jobs/);
  });
  it('names a damaged record on its row', () => {
    expect(formatJobTable([row({ state: 'UNKNOWN', problem: 'job.json is not valid JSON' })], '/')).toMatch(
      /UNKNOWN \(job\.json is not valid JSON\)/,
    );
  });
});

describe('formatStarted and shownDir', () => {
  it('prints local time to the minute', () => {
    const t = new Date(2026, 2, 4, 9, 5, 30).getTime() / 1000;
    expect(formatStarted(t)).toBe('2026-03-04 09:05');
    expect(formatStarted(null)).toBe('-');
  });
  it('shortens only run directories below the current directory', () => {
    expect(shownDir('/a/b/runs/x', '/a/b')).toBe('runs/x');
    expect(shownDir('/a/c/x', '/a/b')).toBe('/a/c/x');
    expect(shownDir('/a/b', '/a/b')).toBe('/a/b');
  });
});

describe('runUrl', () => {
  it("is the UI's run page, without credentials", () => {
    expect(
      runUrl({
        trackingUri: 'https://bob:s3cret@ml.example.org/mlflow/',
        experimentId: '7',
        parentRunId: 'ab12',
      }),
    ).toBe('https://ml.example.org/mlflow/#/experiments/7/runs/ab12?workflowType=machine_learning');
  });
  it("opens the experiment in MLflow 3's training view", () => {
    expect(experimentUrl('http://u:p@127.0.0.1:5000/', '3')).toBe(
      'http://127.0.0.1:5000/#/experiments/3?workflowType=machine_learning',
    );
    expect(experimentUrl('file:///tmp/mlruns', '3')).toBeUndefined();
  });
  it('falls back to the direct run route without an experiment, and to nothing without a run', () => {
    expect(runUrl({ trackingUri: 'http://127.0.0.1:5000', parentRunId: 'ab12' })).toBe(
      'http://127.0.0.1:5000/#/runs/ab12?workflowType=machine_learning',
    );
    expect(runUrl({ trackingUri: 'http://127.0.0.1:5000' })).toBeUndefined();
  });
});
