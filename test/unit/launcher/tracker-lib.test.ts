// sbatch/lib/tracker.sh run by real bash, with a stand-in "node" (a shell script) in place of the
// tracker: what it is started with, the word it gets at the ranks' end, and the job never failed by it.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ranksDone, ranksExitStatus } from '../../../launcher/plan/in-allocation';
import { readJobRecord, writeJobRecord } from '../../../core';
import { jobRecord } from '../tracking/fixture';

const LIB = path.resolve(__dirname, '..', '..', '..', 'sbatch', 'lib', 'tracker.sh');

/** A stand-in for Node.js: `-e` prints the major version it is given; otherwise it is the tracker:
 *  records its argv, waits for logs/ranks.done (unless told to hang) and copies it to seen.txt. */
function fakeNode(dir: string, major: string, hang = false): string {
  const file = path.join(dir, 'node');
  fs.writeFileSync(
    file,
    [
      '#!/bin/bash',
      `if [[ $1 == -e ]]; then printf %s ${major}; exit 0; fi`,
      'run_dir=${!#}',
      'printf "%s\\n" "$@" >"$run_dir/argv.txt"',
      'echo "tracker output"',
      hang ? 'exec sleep 600' : 'until [[ -e $run_dir/logs/ranks.done ]]; do sleep 0.05; done',
      'cp "$run_dir/logs/ranks.done" "$run_dir/seen.txt"',
      'exit 3',
    ].join('\n'),
    { mode: 0o755 },
  );
  return file;
}

/** The batch script's use of the library: start, "ranks" ending with `rc`, finish, exit with rc. */
function job(node: string, runDir: string, rc: number, env: Record<string, string> = {}) {
  const main = path.join(runDir, 'main.js');
  fs.writeFileSync(main, '');
  const script = `set -euo pipefail
    . ${JSON.stringify(LIB)}
    tl_tracker_start "$1" "$2" "$3"
    rc=${rc}
    tl_tracker_finish "$rc" "$3"
    exit "$rc"`;
  return spawnSync('bash', ['-c', script, 'job', node, main, runDir], {
    env: { ...process.env, MLFLOW_TRACKING_URI: 'http://mlflow.example:5000', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

function runDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tl tracker 'q' "));
  fs.mkdirSync(path.join(dir, 'logs'), { mode: 0o700 });
  return dir;
}

describe('tracker.sh', () => {
  test('starts `ingest --follow --placement job`, hands it the ranks status, waits for it', () => {
    const dir = runDir();
    fs.writeFileSync(path.join(dir, 'logs', 'ranks.done'), '9\n'); // a previous start's: removed
    const r = job(fakeNode(dir, '20'), dir, 7);
    expect(r.status).toBe(7); // the ranks' status, whatever the tracker's
    expect(fs.readFileSync(path.join(dir, 'argv.txt'), 'utf8').split('\n')).toEqual([
      path.join(dir, 'main.js'),
      'ingest',
      '--follow',
      '--placement',
      'job',
      '--no-report',
      dir,
      '',
    ]);
    expect(fs.readFileSync(path.join(dir, 'seen.txt'), 'utf8')).toBe('7\n');
    expect(fs.readFileSync(path.join(dir, 'logs', 'tracker.out'), 'utf8')).toBe('tracker output\n');
    expect(r.stderr).toMatch(/^track-launch: tracking inside the allocation: pid \d+ on /m);
    // its own failure (exit 3) is said, not the job's
    expect(r.stderr).toContain('WARNING: the tracker exited with status 3');
    expect(r.stderr).toContain(`track-launch ingest ${dir}`);
    expect(ranksExitStatus(dir)).toBe(7);
  });

  test('a tracker that does not finish in TRACK_LAUNCH_TRACKER_WAIT seconds is stopped', () => {
    const dir = runDir();
    const r = job(fakeNode(dir, '22', true), dir, 0, { TRACK_LAUNCH_TRACKER_WAIT: '0' });
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('WARNING: the tracker did not finish within 0 s');
    expect(r.stderr).toContain('WARNING: the tracker exited with status 143');
    expect(ranksExitStatus(dir)).toBe(0);
  });

  test('a requeue (rank 0 asked for it this start) leaves the runs open: no word, the tracker stopped', () => {
    const dir = runDir();
    const line = '{"t":1,"rank":0,"host":"n1","signal":"USR1","restart":2,"requeue":true}\n';
    fs.writeFileSync(path.join(dir, 'logs', 'signals.jsonl'), line);
    const r = job(fakeNode(dir, '20', true), dir, 143, {
      SLURM_RESTART_COUNT: '2',
      TRACK_LAUNCH_TRACKER_WAIT: '0',
    });
    expect(r.status).toBe(143);
    expect(ranksExitStatus(dir)).toBeUndefined();
    // (bash ignores SIGINT in its background jobs, so the stand-in needs the TERM; Node.js resets it)
    expect(r.stderr).toContain('WARNING: the tracker did not finish within 0 s');
  });

  test.each([
    [
      'no Node.js at the path',
      (dir: string) => path.join(dir, 'missing-node'),
      /Node\.js is not at .*missing-node/,
    ],
    ['Node.js older than 20', (dir: string) => fakeNode(dir, '18'), /is not Node\.js >= 20 \(it says '18'\)/],
    [
      'no tracking URI in the job',
      (dir: string) => fakeNode(dir, '20'),
      /MLFLOW_TRACKING_URI is not in the job's environment .*~\/\.mlflow\/credentials/,
      { MLFLOW_TRACKING_URI: '' },
    ],
  ] as Array<[string, (dir: string) => string, RegExp, Record<string, string>?]>)(
    '%s: said loudly, the job runs untracked and ends with its own status',
    (_, node, why, env = {}) => {
      const dir = runDir();
      const r = job(node(dir), dir, 0, env);
      expect(r.status).toBe(0);
      expect(r.stderr).toMatch(why);
      expect(r.stderr).toContain(
        `the job runs untracked here; track it from the login node: track-launch ingest --follow ${dir}`,
      );
      expect(fs.existsSync(path.join(dir, 'argv.txt'))).toBe(false);
      expect(ranksExitStatus(dir)).toBeUndefined(); // nobody to tell
    },
  );
});

describe('ranksExitStatus', () => {
  test('the exit status the script wrote; anything else refused', () => {
    const dir = runDir();
    const file = path.join(dir, 'logs', 'ranks.done');
    expect(ranksExitStatus(dir)).toBeUndefined();
    fs.writeFileSync(file, '137\n');
    expect(ranksExitStatus(dir)).toBe(137);
    fs.writeFileSync(file, '1'); // no newline: not the script's whole word
    expect(() => ranksExitStatus(dir)).toThrow(/not an exit status/);
    fs.rmSync(file);
    fs.symlinkSync('/etc/passwd', file);
    expect(() => ranksExitStatus(dir)).toThrow();
  });
});

describe('ranksDone', () => {
  test('records the state Slurm will give the job in job.json, then resolves with it', async () => {
    const dir = runDir();
    writeJobRecord(
      dir,
      jobRecord({
        executor: 'slurm',
        job_id: '42',
        state: { name: 'RUNNING', nodes: 'n[1-3]', reason: 'None' },
      }),
    );
    const stop = new AbortController();
    const waiting = ranksDone(dir, { pollMs: 10, signal: stop.signal });
    fs.writeFileSync(path.join(dir, 'logs', 'ranks.done'), '3\n');
    await expect(waiting).resolves.toBe('FAILED');
    expect(readJobRecord(dir).state).toEqual({
      name: 'FAILED',
      nodes: 'n[1-3]',
      exit_code: 3,
      ended_at: expect.any(Number),
    });
    fs.writeFileSync(path.join(dir, 'logs', 'ranks.done'), '0\n');
    await expect(ranksDone(dir, { pollMs: 10, signal: stop.signal })).resolves.toBe('COMPLETED');
  });

  test('undefined once aborted', async () => {
    const stop = new AbortController();
    const aborted = ranksDone(runDir(), { pollMs: 60_000, signal: stop.signal });
    stop.abort();
    await expect(aborted).resolves.toBeUndefined();
  });
});
