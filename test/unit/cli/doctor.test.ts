// doctor: the line format and exit code, each verdict of the shared-filesystem probe, and the probe
// itself against a stubbed Slurm whose "compute node" is a local bash (shared or not).
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { doctorExitCode, formatCheck, summary } from '../../../cli/doctor/format';
import { nodeCheck } from '../../../cli/doctor/login-node';
import { fail, ok, warn } from '../../../launcher/doctor/check';
import { probeSharedDir } from '../../../launcher/doctor/probe-job';
import { healthUrl, probeArgv, probeVerdict, trackerVerdicts } from '../../../launcher/doctor/probe-plan';
import { partitionsCheck } from '../../../launcher/doctor/slurm-checks';
import type { ProcessRunner } from '../../../launcher/slurm/run-process';

describe('format and exit code', () => {
  it('prints OK|WARN|FAIL, the check and what to do, one line each', () => {
    expect(formatCheck(ok('node', 'Node.js 20.1.0'))).toBe('OK    node                Node.js 20.1.0');
    expect(formatCheck(fail('run-dir', 'not shared', 'RUN_DIR'))).toMatch(/^FAIL {2}run-dir\s+not shared$/);
  });
  it('exits 0 without a FAIL, else with the code of the first failure', () => {
    expect(doctorExitCode([ok('a', ''), warn('b', '')])).toBe(0);
    expect(doctorExitCode([warn('b', ''), fail('m', '', 'TRACKING'), fail('r', '', 'RUN_DIR')])).toBe(6);
    expect(summary([ok('a', ''), warn('b', ''), fail('c', '', 'REPORT')])).toBe(
      '1 failed, 1 warning(s), 1 ok',
    );
  });
  it('wants Node 20 or newer', () => {
    expect(nodeCheck('20.11.1').verdict).toBe('OK');
    expect(nodeCheck('18.19.0')).toMatchObject({
      verdict: 'FAIL',
      detail: expect.stringMatching(/install Node.js 20/),
    });
  });
  it('needs a partition that is up', () => {
    const p = (name: string, state: string, isDefault = false) => ({
      name,
      state,
      isDefault,
      nodes: ['n1', 'n2'],
      maxTimeS: null,
      maxTime: 'UNLIMITED',
      maxNodes: null,
    });
    const facts = { version: 1 as const, source: 'scontrol' as const, nodes: [] };
    expect(partitionsCheck({ ...facts, partitions: [p('debug', 'UP', true), p('gpu', 'DOWN')] })).toEqual(
      ok('slurm-partitions', 'debug* (up, 2 nodes), gpu (down, 2 nodes)'),
    );
    expect(partitionsCheck({ ...facts, partitions: [p('gpu', 'DOWN')] }).verdict).toBe('FAIL');
  });
});

describe('probeVerdict', () => {
  const base = { parent: '/scratch/runs', jobId: '42', token: 'tok', waitedS: 3 };
  it('OK when the token comes back', () => {
    expect(probeVerdict({ ...base, content: 'tok node7\n' })).toMatchObject({
      verdict: 'OK',
      detail: expect.stringMatching(/probe job 42 on node7 wrote into \/scratch\/runs/),
    });
  });
  it('FAIL naming the cause when the node could not write, or wrote where this node does not look', () => {
    expect(probeVerdict({ ...base, state: 'FAILED', exitCode: 1, nodes: 'n3' })).toMatchObject({
      verdict: 'FAIL',
      code: 'RUN_DIR',
      detail: expect.stringMatching(
        /probe job 42 on n3 could not write into \/scratch\/runs \(FAILED, exit 1\)/,
      ),
    });
    expect(probeVerdict({ ...base, state: 'COMPLETED' }).detail).toMatch(/this login node does not see it/);
    expect(probeVerdict({ ...base, content: 'other x' }).detail).toMatch(
      /instead of what probe job 42 wrote/,
    );
  });
  it('WARN (not checked) while the job waits in the queue', () => {
    expect(probeVerdict({ ...base, state: 'PENDING', reason: 'Priority' })).toMatchObject({
      verdict: 'WARN',
      detail: expect.stringMatching(/still pending .*\(Priority\)/),
    });
  });
  it('quotes the directory in the probe script', () => {
    const argv = probeArgv("/r/it's here", 'tok', { partition: 'gpu' });
    expect(argv).toContain('--partition=gpu');
    expect(argv[argv.length - 1]).toContain(`'/r/it'\\''s here/probe.tmp'`);
  });
});

/** A stub Slurm: sbatch runs the --wrap script with bash here (optionally with the directory
 *  moved, a node that sees another filesystem), and reports the state it ended in. */
function stubSlurm(opts: { move?: [from: string, to: string]; mkdir?: boolean; pending?: boolean }): {
  run: ProcessRunner;
  calls: string[][];
} {
  const calls: string[][] = [];
  let state = 'PENDING';
  let exit = '0:0';
  const run: ProcessRunner = async (argv) => {
    calls.push(argv);
    const res = (stdout: string, code = 0) => ({ argv, code, stdout, stderr: '' });
    if (argv[0] === 'sbatch') {
      let script = argv.find((a) => a.startsWith('--wrap='))!.slice(7);
      if (opts.move) script = script.split(opts.move[0]).join(opts.move[1]);
      if (opts.mkdir) fs.mkdirSync(/(\S+)\/probe\.tmp/.exec(script)![1], { recursive: true });
      if (!opts.pending) {
        try {
          execFileSync('bash', ['-c', script], { stdio: 'ignore' });
          state = 'COMPLETED';
        } catch {
          state = 'FAILED'; // the script's own failure is the job's state
          exit = '1:0';
        }
      }
      return res('4242\n');
    }
    if (argv[0] === 'sacct') return res(`4242|${state}|${exit}|tlnode2|Unknown|Unknown|00:00:01|None\n`);
    if (argv[0] === 'scancel') return res('');
    return res('', 1);
  };
  return { run, calls };
}

describe('probeSharedDir', () => {
  let parent: string;
  beforeEach(() => (parent = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-unit-probe-'))));
  afterEach(() => fs.rmSync(parent, { recursive: true, force: true }));

  it('OK when the node writes where this machine reads, and leaves nothing behind', async () => {
    const { run } = stubSlurm({});
    const [c] = await probeSharedDir({ parent, timeoutS: 10, run, pollMs: 20 });
    expect(c).toMatchObject({ verdict: 'OK', check: 'run-dir' });
    expect(fs.readdirSync(parent)).toEqual([]);
  });

  it('FAIL when the node cannot reach the directory', async () => {
    const { run } = stubSlurm({ move: [parent, path.join(parent, 'absent')] });
    const [c] = await probeSharedDir({ parent, timeoutS: 10, run, pollMs: 20 });
    expect(c).toMatchObject({ verdict: 'FAIL', code: 'RUN_DIR' });
    expect(c.detail).toMatch(/could not write into .* \(FAILED, exit 1\): the compute nodes do not see it/);
  });

  it('FAIL when the node wrote into a directory of the same name that this machine does not see', async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-unit-probe-other-'));
    try {
      const { run } = stubSlurm({ move: [parent, elsewhere], mkdir: true });
      const [c] = await probeSharedDir({ parent, timeoutS: 1, run, pollMs: 20 });
      expect(c).toMatchObject({ verdict: 'FAIL', code: 'RUN_DIR' });
      expect(c.detail).toMatch(/wrote a file into .*, but this login node does not see it/);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('with a tracking URI: also what --track job needs on the node, from the node itself', async () => {
    const { run } = stubSlurm({});
    const tracker = { node: process.execPath, main: __filename, healthUrl: 'http://127.0.0.1:9/health' };
    const checks = await probeSharedDir({ parent, timeoutS: 10, run, pollMs: 20, tracker });
    expect(checks.map((c) => [c.verdict, c.check])).toEqual([
      ['OK', 'run-dir'],
      ['OK', 'track-job-node'],
      ['WARN', 'track-job-route'], // nothing listens on the discard port
    ]);
    expect(checks[1].detail).toContain(`Node.js ${process.version} at ${process.execPath}`);
    expect(checks[2].detail).toMatch(
      /cannot reach http:\/\/127\.0\.0\.1:9\/health \((curl|python3): no answer\)/,
    );
  });

  it('WARN and cancels the job when it never leaves the queue', async () => {
    const { run, calls } = stubSlurm({ pending: true });
    const [c] = await probeSharedDir({ parent, timeoutS: 0.3, run, pollMs: 20 });
    expect(c.verdict).toBe('WARN');
    expect(calls.some((a) => a[0] === 'scancel' && a.includes('4242'))).toBe(true);
  });
});

describe('trackerVerdicts', () => {
  const t = {
    node: '/opt/node/bin/node',
    main: '/opt/tl/bin/track-launch.js',
    healthUrl: 'https://ml.example/health',
  };
  const verdicts = (body: string) =>
    trackerVerdicts(`tok n1\n${body}\n`, t).map((c) => `${c.verdict} ${c.check}: ${c.detail}`);

  it('OK for Node.js >= 20 that sees track-launch, and any HTTP answer (a route; auth is not its concern)', () => {
    expect(verdicts('node v20.19.0\nmain ok\nroute curl 401')).toEqual([
      'OK track-job-node: n1 runs Node.js v20.19.0 at /opt/node/bin/node and sees /opt/tl/bin/track-launch.js',
      'OK track-job-route: n1 reaches https://ml.example/health (HTTP 401, curl)',
    ]);
  });

  it('WARN, saying what to do, for what the tracker lacks there', () => {
    const [missing, route] = verdicts('node missing\nmain ok\nroute python3 000');
    expect(missing).toMatch(
      /^WARN track-job-node: n1 has no Node.js >= 20 at \/opt\/node\/bin\/node \(nothing there\).*install Node\.js >= 20 .*--track login/,
    );
    expect(route).toMatch(
      /^WARN track-job-route: n1 cannot reach https:\/\/ml\.example\/health \(python3: no answer\).*ask for a route.*--track login/,
    );
    expect(verdicts('node v18.20.1\nmain ok\nroute none')[0]).toMatch(/\(it says v18\.20\.1\)/);
    expect(verdicts('node v18.20.1\nmain ok\nroute none')[1]).toMatch(/neither curl nor python3/);
    expect(verdicts('node v22.1.0\nmain missing\nroute curl 200')[0]).toMatch(
      /^WARN track-job-node: n1 does not see track-launch at \/opt\/tl\/bin\/track-launch\.js/,
    );
  });
});

describe('healthUrl', () => {
  it('drops credentials, query and trailing slashes; none for a local store', () => {
    expect(healthUrl('https://u:secret@ml.example:8443/prefix/?x=1#f')).toBe(
      'https://ml.example:8443/prefix/health',
    );
    expect(healthUrl('http://10.0.0.5:5000')).toBe('http://10.0.0.5:5000/health');
    expect(healthUrl('file:///tmp/mlruns')).toBeUndefined();
    expect(healthUrl('databricks')).toBeUndefined();
  });
});
