// The per-rank log copier (sbatch/lib/capture.py, and capture.sh's bash fallback) run on real pipes
// by real processes: byte-exact logs, one line time per line, bounded memory, and a rank's last
// words kept when it dies right after writing them.
import { spawnSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

jest.setTimeout(120_000);
const LIB = path.resolve(__dirname, '..', '..', '..', 'sbatch', 'lib');
const HELPER = path.join(LIB, 'capture.py');
const CAPTURE_SH = path.join(LIB, 'capture.sh');
const STAMP = /^\d{10,}\.\d{6}$/;

const tmp = (tag: string) => fs.mkdtempSync(path.join(os.tmpdir(), `tl capture '${tag}' `));

function bash(script: string, args: string[] = [], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync('bash', ['-c', script, 'bash', ...args], { env, timeout: 100_000, maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`bash exited ${r.status} (${r.signal}): ${r.stderr?.toString()}`);
  return r;
}

/** Feeds `input` through a real pipe into capture.py FILE; returns what it wrote. */
function viaHelper(dir: string, input: Buffer | string) {
  const src = path.join(dir, 'input');
  fs.writeFileSync(src, input);
  bash('cat -- "$1" | python3 -I -S "$2" "$3/rank-0.out" >"$3/job.out"', [src, HELPER, dir]);
  return read(dir, 'rank-0.out');
}

function read(dir: string, name: string) {
  const ts = fs.readFileSync(path.join(dir, `${name}.ts`), 'utf8');
  return {
    out: fs.readFileSync(path.join(dir, name)),
    job: fs.existsSync(path.join(dir, 'job.out')) ? fs.readFileSync(path.join(dir, 'job.out')) : undefined,
    stamps: ts === '' ? [] : ts.replace(/\n$/, '').split('\n'),
    ts,
  };
}

/** Lines as the contract counts them: one per newline, plus a last one without newline. */
const lineCount = (b: Buffer) =>
  b.filter((c) => c === 10).length + (b.length && b[b.length - 1] !== 10 ? 1 : 0);

/** A PATH of links to what the fallback needs, without python3. */
function pathWithoutPython(dir: string): string {
  const bin = path.join(dir, 'bin-no-python');
  fs.mkdirSync(bin);
  for (const tool of [
    'bash',
    'cat',
    'tee',
    'tr',
    'stdbuf',
    'mkfifo',
    'mktemp',
    'rm',
    'printf',
    'head',
    'kill',
    'sleep',
  ]) {
    const where = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    if (where.startsWith('/')) fs.symlinkSync(where, path.join(bin, tool));
  }
  return bin;
}

/** Runs CMD through tl_run_captured (the bootstrap's path) with logs in DIR; stdout/stderr = job output. */
function viaBootstrap(dir: string, cmd: string, env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(
    'bash',
    [
      '-c',
      'set -euo pipefail; . "$1"; rc=0; tl_run_captured "$2/rank-0.out" "$2/rank-0.err" bash -c "$3" || rc=$?; echo "rc=$rc" >&2',
      'bash',
      CAPTURE_SH,
      dir,
      cmd,
    ],
    { env, timeout: 100_000, maxBuffer: 1 << 28 },
  );
}

describe('capture.py', () => {
  test('random binary data (NUL, CR, LF, invalid UTF-8) is copied byte-exact to the log and the job output', () => {
    const dir = tmp('binary');
    const data = Buffer.concat([crypto.randomBytes(3 << 20), Buffer.from('\0\r\n\xff\n', 'latin1')]);
    const r = viaHelper(dir, data);
    expect(r.out.equals(data)).toBe(true);
    expect(r.job?.equals(data)).toBe(true);
    expect(r.stamps.length).toBe(lineCount(data));
    for (const s of r.stamps) expect(s).toMatch(STAMP);
    // appended, as across a requeue: the log holds both runs and a time for every line of both
    const again = viaHelper(dir, data);
    expect(again.out.equals(Buffer.concat([data, data]))).toBe(true);
    expect(again.stamps.length).toBe(2 * lineCount(data));
  });

  test('CR LF lines, empty lines and a last line without newline each get one time', () => {
    const dir = tmp('crlf');
    const r = viaHelper(dir, 'a\r\nb\r\n\r\n\nlast');
    expect(r.out.toString()).toBe('a\r\nb\r\n\r\n\nlast');
    expect(r.stamps.length).toBe(5);
    expect(r.ts.endsWith('\n')).toBe(true);
    const empty = tmp('empty');
    const e = viaHelper(empty, '');
    expect(e.out.length).toBe(0);
    expect(e.ts).toBe('');
    const one = tmp('one');
    expect(viaHelper(one, 'no newline at all').stamps.length).toBe(1);
  });

  test('a 50 MB line without newline streams through in bounded memory', () => {
    const dir = tmp('long');
    const r = bash(
      'head -c 52428800 /dev/zero | tr "\\0" x | /usr/bin/time -f "%M" -o "$2/rss" python3 -I -S "$1" "$2/rank-0.out" >/dev/null',
      [HELPER, dir],
    );
    expect(r.status).toBe(0);
    expect(fs.statSync(path.join(dir, 'rank-0.out')).size).toBe(52428800);
    expect(fs.readFileSync(path.join(dir, 'rank-0.out.ts'), 'utf8')).toMatch(/^\d+\.\d{6}\n$/);
    const maxRssKiB = Number(fs.readFileSync(path.join(dir, 'rss'), 'utf8').trim().split('\n').pop());
    expect(maxRssKiB).toBeGreaterThan(0);
    expect(maxRssKiB).toBeLessThan(40 * 1024); // python's own ~10 MB, not the 50 MB line
  });

  test('line times are monotonic and within a few ms of when the writer wrote each line', () => {
    const dir = tmp('timing');
    // The writer records the time of each write; 30 lines, 30 ms apart, one of them in two parts.
    const writer = `
import os, time
times = []
for i in range(30):
    if i == 10:
        os.write(1, b"first half ")
        time.sleep(0.03)
    times.append(time.time())
    os.write(1, b"line %d\\n" % i)
    time.sleep(0.03)
open(os.environ["TIMES"], "w").write("\\n".join("%.6f" % t for t in times))
`;
    bash('python3 -c "$1" | python3 -I -S "$2" "$3/rank-0.out" >/dev/null', [writer, HELPER, dir], {
      ...process.env,
      TIMES: path.join(dir, 'times'),
    });
    const written = fs.readFileSync(path.join(dir, 'times'), 'utf8').split('\n').map(Number);
    const stamps = read(dir, 'rank-0.out').stamps.map(Number);
    expect(stamps.length).toBe(30);
    const lags = stamps.map((s, i) => (s - written[i]) * 1000);
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]).toBeGreaterThanOrEqual(stamps[i - 1]);
    for (const lag of lags) expect(lag).toBeGreaterThanOrEqual(-1); // never before the write (1 ms rounding)
    const sorted = [...lags].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(5); // median: a few ms
    expect(sorted[sorted.length - 1]).toBeLessThan(100); // worst case on a shared, loaded machine
  });

  test('a writer killed with SIGKILL right after its last write still has all of it captured', () => {
    const dir = tmp('sigkill');
    const writer =
      'import os,signal; os.write(1, b"y" * 1000000 + b"\\nlast words\\n"); os.kill(os.getpid(), signal.SIGKILL)';
    bash('python3 -c "$1" | python3 -I -S "$2" "$3/rank-0.out" >"$3/job.out" || true', [writer, HELPER, dir]);
    const r = read(dir, 'rank-0.out');
    expect(r.out.length).toBe(1000012);
    expect(r.out.toString().endsWith('\nlast words\n')).toBe(true);
    expect(r.job?.toString().endsWith('\nlast words\n')).toBe(true);
    expect(r.stamps.length).toBe(2);
  });

  test('signals that Slurm sends to the whole step do not stop it before the pipe ends', () => {
    const dir = tmp('signals');
    bash(
      // signalled once it has copied the first line (it is set up), while the second is to come
      `{ echo one; sleep 1; echo two; } | { python3 -I -S "$1" "$2/rank-0.out" >/dev/null & p=$!
         until [[ -s $2/rank-0.out.ts ]]; do sleep 0.01; done
         kill -TERM "$p"; kill -USR1 "$p"; kill -INT "$p"; kill -HUP "$p"; wait "$p"; }`,
      [HELPER, dir],
    );
    expect(read(dir, 'rank-0.out').out.toString()).toBe('one\ntwo\n');
  });
});

describe('capture.sh: tl_run_captured, with capture.py and with the bash fallback', () => {
  const cases = [
    ['python3', () => process.env],
    [
      'the bash fallback (no python3 on PATH)',
      (dir: string) => ({ ...process.env, PATH: pathWithoutPython(dir) }),
    ],
  ] as const;
  const cmd = 'printf "out 1\\r\\nout 2\\n\\nno newline"; printf "err 1\\nerr last" >&2; exit 3';

  for (const [name, envFor] of cases) {
    test(`${name}: byte-exact .out/.err and the job output, one time per line, the exit status`, () => {
      const dir = tmp(name.slice(0, 8));
      const env = envFor(dir);
      const r = viaBootstrap(dir, cmd, env);
      expect(r.status).toBe(0);
      expect(r.stdout.toString()).toBe('out 1\r\nout 2\n\nno newline');
      expect(r.stderr.toString()).toBe('err 1\nerr lastrc=3\n');
      const out = read(dir, 'rank-0.out');
      const err = read(dir, 'rank-0.err');
      expect(out.out.toString()).toBe('out 1\r\nout 2\n\nno newline');
      expect(err.out.toString()).toBe('err 1\nerr last');
      expect(out.stamps.length).toBe(4);
      expect(err.stamps.length).toBe(2);
      for (const s of [...out.stamps, ...err.stamps]) expect(s).toMatch(STAMP);
      expect(out.ts.endsWith('\n') && err.ts.endsWith('\n')).toBe(true);
    });

    test(`${name}: a rank killed with SIGKILL right after writing keeps its last words in .err and the job output`, () => {
      const dir = tmp(`kill ${name.slice(0, 8)}`);
      const r = viaBootstrap(
        dir,
        'head -c 300000 /dev/zero | tr "\\0" z; echo; echo "last words" >&2; kill -KILL $$',
        envFor(dir),
      );
      expect(r.stderr.toString()).toContain('last words\n'); // (and bash's own "Killed" notice)
      expect(r.stderr.toString()).toMatch(/rc=137\n$/);
      expect(read(dir, 'rank-0.err').out.toString()).toBe('last words\n');
      expect(read(dir, 'rank-0.out').out.length).toBe(300001);
      expect(r.stdout.length).toBe(300001);
    });
  }

  test('the fallback writes the same .out and .ts shapes as capture.py for binary data', () => {
    const data = Buffer.concat([crypto.randomBytes(200_000), Buffer.from('tail without newline')]);
    const shapes = cases.map(([, envFor]) => {
      const dir = tmp('shape');
      fs.writeFileSync(path.join(dir, 'data'), data);
      const r = viaBootstrap(dir, `cat -- ${JSON.stringify(path.join(dir, 'data'))}`, envFor(dir));
      expect(r.stdout.equals(data)).toBe(true);
      const out = read(dir, 'rank-0.out');
      expect(out.out.equals(data)).toBe(true);
      for (const s of out.stamps) expect(s).toMatch(STAMP);
      return out.stamps.length;
    });
    expect(shapes).toEqual([lineCount(data), lineCount(data)]);
  });

  test('a TERM to the bootstrap reaches the rank, and what it writes on the way out is kept', () => {
    const dir = tmp('term');
    const r = spawnSync(
      'bash',
      [
        '-c',
        `. "$1"; tl_run_captured "$2/rank-0.out" "$2/rank-0.err" bash -c 'trap "echo goodbye >&2; exit 143" TERM; echo started; while :; do sleep 0.05; done' &
         b=$!; for _ in $(seq 400); do grep -qs started "$2/rank-0.out" && break; sleep 0.05; done
         kill -TERM "$b"; sleep 0.05; kill -TERM "$b"; wait "$b"; echo "rc=$?"`,
        'bash',
        CAPTURE_SH,
        dir,
      ],
      { timeout: 30_000 },
    );
    expect(r.stdout.toString()).toBe('started\nrc=143\n');
    expect(read(dir, 'rank-0.err').out.toString()).toBe('goodbye\n');
  });

  test('the rank starts only once both copiers read its pipes (the handshake), and inherits none of their ends', () => {
    const dir = tmp('handshake');
    // a python3 that starts slowly and leaves a mark before it runs capture.py
    const slow = path.join(dir, 'slow-python3');
    fs.writeFileSync(
      slow,
      `#!/bin/bash\nsleep 0.5\n: >"$(mktemp ${JSON.stringify(dir)}/started.XXXXXX)"\nexec python3 "$@"\n`,
      { mode: 0o755 },
    );
    const cmd =
      'ls ' +
      JSON.stringify(dir) +
      ' | grep -c "^started"; ' +
      'for f in /proc/$$/fd/*; do n=${f##*/}; ((n > 2)) && readlink "$f"; done | grep -c track-launch || true';
    const r = viaBootstrap(dir, cmd, { ...process.env, TL_CAPTURE_PYTHON: slow });
    expect(r.stderr.toString()).toBe('rc=0\n');
    expect(r.stdout.toString()).toBe('2\n0\n'); // both copiers had started; no FIFO of theirs open
  });

  test('a copier that cannot start (python3 fails at once) still lets the rank start through the fallback', () => {
    const dir = tmp('no helper');
    const t0 = Date.now();
    const r = viaBootstrap(dir, 'echo hello', { ...process.env, TL_CAPTURE_PYTHON: '/bin/false' });
    expect(r.stdout.toString()).toBe('hello\n');
    expect(read(dir, 'rank-0.out').stamps.length).toBe(1);
    expect(Date.now() - t0).toBeLessThan(25_000); // not the handshake's 30 s limit
  });
});
