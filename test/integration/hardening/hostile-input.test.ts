// Issue #6 item 12, for real: the hostile corpus (hand-written + fast-check, fixed seed) through the
// built CLI, as command arguments and env values (local executor, and one job through sbatch on
// the test cluster), as run directories and a container path; refused names and modules are
// refused with a clear message. The command prints the hex bytes of what it received; a
// canary directory must stay empty.
import * as fs from 'fs';
import * as path from 'path';
import { canaryFiles, generated, handCorpus } from '../../fixtures/hostile/corpus';
import {
  cancelJobs,
  cli,
  clusterEnv,
  jobIdOf,
  lines,
  logFile,
  PYTHON,
  ranksWithLogs,
  REPO,
  requireCluster,
  said,
  tmpDir,
} from '../launcher/cluster';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { countingProxy, type CountingProxy } from '../tracking/counting-proxy';
import { history, jobRuns } from '../tracking/helpers';
import { mlflowUp, uniqueName } from '../tracking/server';
import {
  aggregatesOf,
  auditSent,
  clean,
  expectedOf,
  loggedPoints,
  type LineReader,
} from '../tracking/sent-ledger';

jest.setTimeout(300_000);
const submitted: string[] = [];
const root = tmpDir('hostile6');
const canary = path.join(root, 'canary');
fs.mkdirSync(canary);
const CORPUS = [...handCorpus(canary), ...generated(canary, 60)];
const env = clusterEnv({ PATH: `${path.join(REPO, 'test', 'fixtures', 'bin')}:${process.env.PATH}` });
beforeAll(requireCluster);
afterAll(() => cancelJobs(submitted, env));
afterEach(() => expect(canaryFiles(canary)).toEqual([]));

/** Prints {"a": hex of each argument, "e": hex of each TL_H<i>} as one line: bytes, not text. */
const PROG =
  'import json,os,sys; n=len(sys.argv)-1; print(json.dumps({"a":[os.fsencode(x).hex() for x in sys.argv[1:]],"e":[(lambda v: "unset" if v is None else v.hex())(os.environb.get(b"TL_H%d"%i)) for i in range(n)]}))';
const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');

async function batch(strings: string[], opts: string[], runDir: string, ranks: number[]): Promise<void> {
  const envFlags = strings.map((s, i) => `--env=TL_H${i}=${s}`);
  const r = await cli(
    [
      'submit',
      ...opts,
      '--follow',
      '--poll',
      '0.5',
      '--run-dir',
      runDir,
      ...envFlags,
      '--',
      PYTHON,
      '-c',
      PROG,
      ...strings,
    ],
    { env, cwd: root, timeoutMs: 240_000 },
  );
  if (r.code !== 0) throw new Error(`submit failed:\n${said(r)}`);
  if (!opts.includes('local')) submitted.push(jobIdOf(r));
  for (const rank of ranks) {
    const out = lines(logFile(runDir, `rank-${rank}.out`));
    expect(out).toHaveLength(1);
    const got = JSON.parse(out[0]) as { a: string[]; e: string[] };
    const want = strings.map(hex);
    // Name the first string that did not arrive byte-exact.
    const badArg = strings
      .filter((s, i) => got.a[i] !== want[i])
      .map((s) => [s, Buffer.from(got.a[strings.indexOf(s)] ?? '', 'hex').toString()]);
    const badEnv = strings.filter((s, i) => got.e[i] !== want[i]);
    expect({ rank, badArg, badEnv, n: got.a.length }).toEqual({
      rank,
      badArg: [],
      badEnv: [],
      n: strings.length,
    });
  }
}

test(`local executor: ${CORPUS.length} strings as arguments and env values arrive byte-exact, nothing runs`, async () => {
  expect(CORPUS.length).toBeGreaterThanOrEqual(200);
  const size = Math.ceil(CORPUS.length / 4);
  for (let b = 0; b * size < CORPUS.length; b++) {
    await batch(
      CORPUS.slice(b * size, (b + 1) * size),
      ['--executor', 'local', '-N', '2'],
      path.join(root, `local-${b}`),
      [0, 1],
    );
  }
});

test('through sbatch on the test cluster: the hand corpus (less CR LF, below) arrives byte-exact on every rank', async () => {
  await batch(
    handCorpus(canary).filter((s) => !s.includes('\r\n')),
    ['-N', '2'],
    path.join(root, 'slurm'),
    [0, 1],
  );
});

/** Prints each byte of the value it got (TL_H0, else its first argument) as a jsonl metric line
 *  ending in CR LF: step i, `byte` = the i-th byte. */
const BYTES_PROG =
  'import json,os,sys; v = os.fsencode(sys.argv[1]) if len(sys.argv) > 1 else os.environb[b"TL_H0"]; ' +
  '[sys.stdout.write(json.dumps({"track_launch": 1, "step": i, "metrics": {"byte": b}}) + "\\r\\n") for i, b in enumerate(v)]';

test('through sbatch: an argument or env value with CR LF is delivered, or refused up front naming the option', async () => {
  const proxy = await countingProxy(mlflowUp());
  try {
    for (const opts of [['--env=TL_H0=a\r\nb'], []]) {
      const runDir = path.join(root, `crlf-${opts.length}`);
      const experiment = uniqueName('crlf');
      proxy.phase = opts.length;
      const r = await cli(
        [
          'submit',
          '-N',
          '1',
          '--follow',
          '--poll',
          '0.5',
          '--experiment',
          experiment,
          '--run-dir',
          runDir,
          ...opts,
          '--',
          PYTHON,
          '-c',
          BYTES_PROG,
          ...(opts.length ? [] : ['a\r\nb']),
        ],
        { env: { ...env, MLFLOW_TRACKING_URI: proxy.uri }, cwd: root },
      );
      if (r.code !== 2) {
        expect({ code: r.code, out: r.code === 0 ? '' : said(r) }).toEqual({ code: 0, out: '' });
        submitted.push(jobIdOf(r));
        await expectBytesDelivered(proxy, opts.length, runDir, experiment, Buffer.from('a\r\nb'));
        continue;
      }
      // Refused: before anything is written, with exit 2 and the option named (not sbatch's "DOS line breaks").
      expect({ code: r.code, stderr: r.stderr }).toEqual({
        code: 2,
        stderr: expect.stringMatching(opts.length ? /--env/ : /command/),
      });
      expect(fs.existsSync(runDir)).toBe(false);
    }
  } finally {
    await proxy.close();
  }
});

/** The value reached the rank byte-exact (its log holds one CR LF-ended metric line per byte, read
 *  here with the test's own regex), and the points of those lines reached MLflow: each sent once
 *  through the counting proxy, with the byte as its value, and read back from the rank's run. */
async function expectBytesDelivered(
  proxy: CountingProxy,
  phase: number,
  runDir: string,
  experiment: string,
  value: Buffer,
): Promise<void> {
  const read: LineReader = (l) => {
    const m = /^\{"track_launch": 1, "step": (\d+), "metrics": \{"byte": (\d+)\}\}\r$/.exec(l);
    return m ? { step: Number(m[1]), metrics: [['byte', Number(m[2])]] } : undefined;
  };
  const logged = await loggedPoints(runDir, 0, read);
  expect(logged.map((p) => [p.step, p.value])).toEqual([...value].map((b, i) => [i, b]));
  const client = await MlflowClient.connect(mlflowUp(), {});
  const exp = await client.getExperimentByName(experiment);
  const jobKey = JSON.parse(fs.readFileSync(path.join(runDir, 'tracking', 'state.json'), 'utf8')).job_key;
  const runs = await jobRuns(client, exp!.experiment_id, jobKey);
  const rankRun = runs.ranks.get(0)!.info.run_id;
  const expected = expectedOf(runs.parent.info.run_id, aggregatesOf([logged]));
  expectedOf(rankRun, logged, expected);
  const sent = proxy.sent.filter((p) => p.phase === phase && p.key.startsWith('byte'));
  expect(auditSent(sent, [], expected)).toEqual(clean(4 * value.length));
  expect(await history(client, rankRun, 'byte')).toEqual(logged.map((p) => [p.step, p.value, p.timestamp]));
}

test('hostile run directories and a hostile container path work end to end', async () => {
  const dirs = [
    `it's "q" $(touch ${canary}/d1) \`touch ${canary}/d2\`; & | * ? [a] {b,c} ~ !x #h`,
    `-n --follow ünïcödé 日本語 🚀 \\ tab\tx ${'L'.repeat(150)}`,
  ];
  for (const [i, d] of dirs.entries()) {
    const runDir = path.join(root, `rd${i}`, d);
    const r = await cli(
      [
        'submit',
        '--executor',
        'local',
        '-N',
        '2',
        '--follow',
        '--poll',
        '0.5',
        '--run-dir',
        runDir,
        '--',
        PYTHON,
        '-c',
        'import os; print(os.environ["TRACK_LAUNCH_RUN_DIR"])',
      ],
      { env, cwd: root },
    );
    expect({ code: r.code, out: r.code === 0 ? '' : said(r) }).toEqual({ code: 0, out: '' });
    expect(lines(logFile(runDir, 'rank-1.out'))).toEqual([runDir]);
    const st = await cli(['status', runDir, '--json'], { env, cwd: root });
    expect(JSON.parse(st.stdout).job.state.name).toBe('COMPLETED');
    const lg = await cli(['logs', runDir, '--rank', '1'], { env, cwd: root });
    expect(lg.stdout).toBe(`${runDir}\n`);
  }
  // The image path, the run dir and the user's bind reach apptainer byte-exact, in that order
  // (test/fixtures/bin/apptainer records its argv): `apptainer exec --bind <run-dir> --bind <bind>
  // <image> <command>`, once per rank.
  const log = path.join(root, 'apptainer.jsonl');
  const image = `/images/it's $(touch ${canary}/img) ;\`x\` *.sif`;
  const bind = `/data/a b:/mnt/$(touch ${canary}/bind)`;
  const runDir = path.join(root, `container it's $(touch ${canary}/rd) ü`);
  const r = await cli(
    [
      'submit',
      '--executor',
      'local',
      '--follow',
      '--poll',
      '0.5',
      '--run-dir',
      runDir,
      '--container',
      image,
      '--bind',
      bind,
      '--',
      PYTHON,
      '-c',
      'print("in")',
    ],
    { env: { ...env, TL_FAKE_APPTAINER_LOG: log }, cwd: root },
  );
  expect({ code: r.code, out: r.code === 0 ? '' : said(r) }).toEqual({ code: 0, out: '' });
  const calls = lines(log).map((l) => JSON.parse(l) as { argv: string[] });
  expect(calls.length).toBe(ranksWithLogs(runDir).length);
  expect(calls.length).toBeGreaterThanOrEqual(1);
  for (const c of calls)
    expect(c.argv).toEqual([
      path.join(REPO, 'test', 'fixtures', 'bin', 'apptainer'),
      'exec',
      '--bind',
      runDir,
      '--bind',
      bind,
      image,
      PYTHON,
      '-c',
      'print("in")',
    ]);
  expect(lines(logFile(runDir, 'rank-0.out'))).toEqual(['in']);
});

test('names and modules the validator refuses: exit 2, a message naming the option, nothing written', async () => {
  const cwd = tmpDir('hostile-refuse');
  for (const [flag, value, allowed] of [
    ['--name', `a b`, 'use letters, digits and _ . + -'],
    ['--name', `$(touch ${canary}/n)`, 'use letters, digits and _ . + -'],
    ['--name', `x'y`, 'use letters, digits and _ . + -'],
    ['--name', 'n'.repeat(129), 'use letters, digits and _ . + -'],
    ['--module', 'GCC 11', 'a module name without spaces'],
    ['--module', `x\n$(touch ${canary}/m)`, 'a module name without spaces'],
    ['--run-dir', `a\nb`, 'a non-empty string'],
    ['--run-dir', 'runs/%j', "without '%'"],
    ['--container', `a\rb`, 'a non-empty string'],
  ]) {
    const r = await cli(['submit', `${flag}=${value}`, '-N', '1', '--', 'true'], { env, cwd });
    expect({ flag, value, code: r.code }).toEqual({ flag, value, code: 2 });
    expect(r.stderr).toContain(`${flag}: ${JSON.stringify(value)} is not valid; `);
    expect(r.stderr).toContain(allowed);
  }
  expect(fs.readdirSync(cwd)).toEqual([]);
});

test('a hostile module name that is allowed is passed to `module load` as one word, and only that runs', async () => {
  const runDir = path.join(root, 'module');
  const mod = `tltest/1.0;touch${'${IFS}'}${canary}/mod$(touch${'${IFS}'}${canary}/mod2)`;
  const r = await cli(
    [
      'submit',
      '--executor',
      'local',
      '--follow',
      '--poll',
      '0.5',
      '--run-dir',
      runDir,
      `--module=${mod}`,
      '--',
      'true',
    ],
    { env: { ...env, MODULEPATH: path.join(REPO, 'test', 'fixtures', 'modulefiles') }, cwd: root },
  );
  expect(r.code).toBe(5); // the job failed: no such module
  expect(fs.readFileSync(logFile(runDir, 'job.out'), 'utf8')).toContain(
    `track-launch: module load failed on`,
  );
});
