// A machine where the report renderer does not load: every command that draws nothing still works and never
// tries to load it; the report commands fail with one REPORT error (exit 8) naming the platform and the fix.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const REPO = path.join(__dirname, '..', '..', '..');
const CLI = path.join(REPO, 'bin', 'track-launch.js');
const FIXTURE = path.join(REPO, 'test', 'fixtures', 'runs', 'polynomial-3');

jest.setTimeout(120_000);

let work: string;
let attempts: string;
let preload: string;

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'track-launch-no-renderer-'));
  attempts = path.join(work, 'attempts');
  preload = path.join(work, 'no-renderer.js');
  // As a missing prebuilt binary does: resolving @napi-rs/canvas throws; each attempt is written down.
  fs.writeFileSync(
    preload,
    `const Module = require('module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === '@napi-rs/canvas' || request.startsWith('@napi-rs/canvas/')) {
    require('fs').appendFileSync(${JSON.stringify(attempts)}, request + '\\n');
    throw new Error("Cannot find module '@napi-rs/canvas-linux-x64-gnu'");
  }
  return resolve.call(this, request, ...rest);
};
`,
  );
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const run = (args: string[]) =>
  spawnSync(process.execPath, ['--require', preload, CLI, ...args], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 60_000,
  });

const tried = () => (fs.existsSync(attempts) ? fs.readFileSync(attempts, 'utf8') : '');

test('--help, status and submit --dry-run work without loading the renderer', () => {
  for (const args of [
    ['--help'],
    ['status', FIXTURE],
    [
      'submit',
      '--executor',
      'local',
      '--nodes',
      '2',
      '--dry-run',
      '--',
      'python3',
      'examples/polynomial/train.py',
    ],
  ]) {
    const r = run(args);
    expect({ args, code: r.status, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
    expect(tried()).toBe('');
  }
});

test('report fails with one REPORT error naming the platform and what to install', () => {
  const out = path.join(work, 'out');
  const r = run(['report', FIXTURE, '--out', out]);
  expect(tried()).not.toBe(''); // the preload really stood in the way
  expect(r.status).toBe(8);
  expect(r.stderr).toContain('@napi-rs/canvas does not load on linux-');
  expect(r.stderr).toMatch(/reinstall track-launch with npm/);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  expect(fs.existsSync(out)).toBe(false); // nothing half-written
});
