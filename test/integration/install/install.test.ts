// README's install, as a new user on a login node does it: the packed project installed by an unprivileged
// user (tl-user, made by test/users/up) into ~/pfx from the npm registry alone, with every compiler and
// node-gyp replaced by a trap that records its call; then --help, doctor, a local job with its report and
// `report` to PDF and PNG, all from the installed package. And an older Node gets one line, not a trace.
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pdfPages, pdfText, pngSize } from '../../unit/reports/helpers/check-output';

const REPO = path.join(__dirname, '..', '..', '..');
const USER = 'tl-user';
const PYTHON = process.env.TRACK_LAUNCH_TEST_PYTHON ?? '/usr/bin/python3';
/** What a source build would call: C/C++ compilers, make, node-gyp and the tools a binding.gyp asks. */
const TRAPPED = ['cc', 'gcc', 'g++', 'c++', 'clang', 'clang++', 'make', 'gmake', 'node-gyp', 'pkg-config'];
const TRAPPED_PY = ['python3-config', 'python-config'];

const NETWORK = [
  'NODE_EXTRA_CA_CERTS',
  'https_proxy',
  'HTTPS_PROXY',
  'http_proxy',
  'HTTP_PROXY',
  'no_proxy',
  'NO_PROXY',
];

jest.setTimeout(300_000);

let home: string;
let work: string; // in tl-user's home: the jest run's temporary directory is root's alone
let traps: string;
let calls: string;
let tarball: string;
let pfx: string;
let installed: string;

beforeAll(() => {
  home = execFileSync('bash', [path.join(REPO, 'test', 'users', 'up')], { encoding: 'utf8' }).trim();
  pfx = path.join(home, 'pfx');
  installed = path.join(pfx, 'lib', 'node_modules', 'track-launch');
  work = fs.mkdtempSync(path.join(home, 'tl-test-install-'));
  traps = path.join(work, 'traps');
  calls = path.join(work, 'compiler-calls');
  fs.mkdirSync(traps);
  for (const name of [...TRAPPED, ...TRAPPED_PY])
    fs.writeFileSync(
      path.join(traps, name),
      `#!/bin/sh\necho "${name} $*" >> '${calls}'\necho "${name}: trapped by the install test" >&2\nexit 1\n`,
      { mode: 0o755 },
    );
  fs.writeFileSync(calls, '', { mode: 0o666 });
  fs.chmodSync(calls, 0o666);
  const [uid, gid] = ['-u', '-g'].map((o) => Number(execFileSync('id', [o, USER], { encoding: 'utf8' })));
  fs.chownSync(work, uid, gid); // the job's run directory and the reports go in here
});
afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** Run `argv` as tl-user in its home, with a login node's plain environment and the traps first on PATH. */
function asUser(argv: string[], timeout = 240_000) {
  const env = [
    `HOME=${home}`,
    `USER=${USER}`,
    `LOGNAME=${USER}`,
    `PATH=${traps}:${path.join(pfx, 'bin')}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
    'LANG=C.UTF-8',
    `CC=${traps}/cc`,
    `CXX=${traps}/c++`,
    `npm_config_node_gyp=${traps}/node-gyp`,
    // the site's network settings (a proxy, its certificate authority), as a login node has them
    ...NETWORK.filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]}`),
  ];
  const r = spawnSync('runuser', ['-u', USER, '--', 'env', '-i', ...env, ...argv], {
    cwd: home,
    encoding: 'utf8',
    timeout,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every file and directory under `dir`. */
function walk(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    out.push(p);
    if (e.isDirectory()) walk(p, out);
  }
  return out;
}

test('npm pack: compiled JavaScript, bin, sbatch/ and examples; no tests, fixtures, benchmarks or maps', () => {
  const name = execFileSync('npm', ['pack', '--pack-destination', work, '--silent'], {
    cwd: REPO,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop() as string;
  tarball = path.join(work, name);
  fs.chmodSync(tarball, 0o644);
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''));
  for (const f of [
    'bin/track-launch.js',
    'dist/cli/main.js',
    'dist/launcher/executors/local-supervisor.js',
    'sbatch/rank-bootstrap.sh',
    'sbatch/lib/capture.py',
    'examples/polynomial/train.py',
    'package.json',
    'README.md',
  ])
    expect(files).toContain(f);
  expect(files.filter((f) => /^(test|bench|dist\/bench|dist\/test)\/|fixtures|\.map$|\.ts$/.test(f))).toEqual(
    [],
  );
  // built from an empty dist/: every compiled file has its source (none left from a deleted one)
  const orphans = files
    .filter((f) => f.startsWith('dist/') && f.endsWith('.js'))
    .filter((f) => !fs.existsSync(path.join(REPO, f.slice('dist/'.length).replace(/\.js$/, '.ts'))));
  expect(orphans).toEqual([]);
});

test('installs as tl-user into ~/pfx from the npm registry alone, with no compiler, make or node-gyp', () => {
  expect(asUser(['rm', '-rf', pfx]).code).toBe(0);
  const r = asUser(['npm', 'install', '-g', '--prefix', pfx, '--no-audit', '--no-fund', tarball]);
  expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
  expect(fs.readFileSync(calls, 'utf8')).toBe(''); // no trap was called
  expect(fs.statSync(installed).uid).toBe(Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' })));
  const tree = walk(installed);
  // what node-gyp leaves (a package's own build/ of JavaScript, as yargs has, is no sign of a compile)
  expect(
    tree.filter((p) => /[\\/](binding\.gyp|config\.gypi|build[\\/](Release|Debug|Makefile))$/.test(p)),
  ).toEqual([]);
  const withScripts = tree
    .filter((p) => p.endsWith(`${path.sep}package.json`))
    .filter((p) => {
      const scripts =
        (JSON.parse(fs.readFileSync(p, 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
      return ['preinstall', 'install', 'postinstall'].some((s) => s in scripts);
    });
  expect(withScripts).toEqual([]);
  // the renderer's prebuilt binary came as an npm package for this platform
  expect(tree.some((p) => /@napi-rs[\\/]canvas-[^\\/]+[\\/][^\\/]+\.node$/.test(p))).toBe(true);
});

test('--help and doctor --no-job: installed at the prefix, the renderer loads and draws text', () => {
  const help = asUser(['track-launch', '--help']);
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/track-launch submit/);
  const doc = asUser(['track-launch', 'doctor', '--no-job', '--executor', 'local']);
  const line = (check: string) =>
    doc.stdout.split('\n').find((l) => new RegExp(`^\\S+\\s+${check}\\s`).test(l));
  expect(line('node')).toMatch(/^OK\s+node\s+Node\.js \d+/);
  expect(line('install')).toBe(
    `OK    install             npm package 0.1.0 at prefix ${pfx} (npm install -g)`.replace(
      '0.1.0',
      (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version,
    ),
  );
  expect(line('renderer')).toMatch(/^OK\s+renderer\s+@napi-rs\/canvas \S+ on linux-\S+ loads$/);
  expect(line('fonts')).toMatch(/^OK\s+fonts\s+DejaVu Sans draws text/);
  expect(doc.stdout).not.toMatch(/^FAIL/m);
});

test('a local 2-rank job with its report, then report to PDF and PNG, as tl-user', () => {
  const runDir = path.join(work, 'runs', 'poly');
  const train = path.join(installed, 'examples', 'polynomial', 'train.py');
  const job = asUser([
    'track-launch',
    'submit',
    '--executor',
    'local',
    '--nodes',
    '2',
    '--name',
    'poly',
    '--run-dir',
    runDir,
    '--follow',
    '--',
    PYTHON,
    train,
    '--epochs',
    '60',
    '--log-every',
    '10',
  ]);
  expect({ code: job.code, stderr: job.stderr }).toMatchObject({ code: 0 });
  expect(fs.readdirSync(path.join(runDir, 'reports'))).toEqual(expect.arrayContaining(['report.pdf']));
  const out = path.join(work, 'out');
  const rep = asUser(['track-launch', 'report', runDir, '--format', 'pdf,png', '--out', out]);
  expect({ code: rep.code, stderr: rep.stderr }).toMatchObject({ code: 0 });
  const written = fs.readdirSync(out);
  expect(written).toContain('report.pdf');
  const pngs = written.filter((f) => f.endsWith('.png'));
  expect(pngs.length).toBeGreaterThanOrEqual(3);
  for (const f of pngs) {
    const { width, height } = pngSize(path.join(out, f));
    // the summary page grows with its table and notes instead of cutting them off
    expect({ width, tall: f === 'summary.png' ? height >= 1120 : height === 1120 }).toEqual({
      width: 2000,
      tall: true,
    });
  }
  const pdf = path.join(out, 'report.pdf');
  expect(pdfPages(pdf)).toBe(pngs.length);
  const text = pdfText(pdf);
  for (const s of ['track-launch report: poly', 'Job summary', 'final loss', 'mean over ranks'])
    expect(text).toContain(s);
});

test('an older Node gets one line naming the version found and the one needed', () => {
  const old = '18.20.8';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'old-node-'));
  // npm pack fetches the registry's node-linux-<arch> package (the npm cache keeps it); nothing runs from it
  const tgz = execFileSync('npm', ['pack', `node-linux-${process.arch}@${old}`, '--silent'], {
    cwd: dir,
    encoding: 'utf8',
  }).trim();
  execFileSync('tar', ['-xzf', tgz, 'package/bin/node'], { cwd: dir });
  const oldNode = path.join(dir, 'package', 'bin', 'node');
  expect(execFileSync(oldNode, ['--version'], { encoding: 'utf8' }).trim()).toBe(`v${old}`);
  const r = spawnSync(oldNode, [path.join(installed, 'bin', 'track-launch.js'), '--help'], {
    encoding: 'utf8',
  });
  expect(r.status).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n')).toEqual([
    expect.stringMatching(
      new RegExp(`needs Node\\.js 20 or newer; found Node\\.js ${old.replace(/\./g, '\\.')} `),
    ),
  ]);
  fs.rmSync(dir, { recursive: true, force: true });
});
