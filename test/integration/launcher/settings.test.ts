// Where option values come from: flags > TRACK_LAUNCH_* (also from ./.env) > config file > defaults.
// Runs the built CLI's dry run (no cluster needed, --no-check).
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { CLI, tmpDir } from './cluster';

function dryRun(cwd: string, args: string[], env: Record<string, string> = {}) {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('TRACK_LAUNCH_')),
  );
  const r = spawnSync(
    process.execPath,
    [CLI, 'submit', '--dry-run', '--no-check', '--json', ...args, '--', 'python3', 'x.py'],
    { cwd, env: { ...base, ...env }, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout).plan.spec as {
    partition?: string;
    nodes: number;
    time?: string;
    account?: string;
    name?: string;
    module?: string[];
    exclusive?: boolean;
  };
}

test('precedence: flags over environment over .env over the config file', () => {
  const cwd = tmpDir('settings');
  fs.writeFileSync(
    path.join(cwd, 'track-launch.config.json'),
    JSON.stringify({ partition: 'from-config', nodes: 2, time: '10', account: 'cfg' }),
  );
  fs.writeFileSync(path.join(cwd, '.env'), 'TRACK_LAUNCH_PARTITION=from-dotenv\nTRACK_LAUNCH_TIME=20\n');
  expect(dryRun(cwd, [])).toMatchObject({ partition: 'from-dotenv', nodes: 2, time: '20', account: 'cfg' });
  expect(dryRun(cwd, [], { TRACK_LAUNCH_PARTITION: 'from-env' })).toMatchObject({
    partition: 'from-env',
    time: '20',
  });
  expect(
    dryRun(cwd, ['--partition', 'from-flag', '-N', '3'], { TRACK_LAUNCH_PARTITION: 'from-env' }),
  ).toMatchObject({ partition: 'from-flag', nodes: 3 });
  expect(
    dryRun(cwd, ['--config', path.join(cwd, 'track-launch.config.json'), '--account', 'flag']),
  ).toMatchObject({ account: 'flag' });
});

test('the config file takes lists and flags, the environment the job name', () => {
  const cwd = tmpDir('settings-lists');
  fs.writeFileSync(
    path.join(cwd, 'track-launch.config.json'),
    JSON.stringify({ module: ['cuda/12.2', 'nccl'], exclusive: true, name: 'from-config' }),
  );
  expect(dryRun(cwd, [])).toMatchObject({
    module: ['cuda/12.2', 'nccl'],
    exclusive: true,
    name: 'from-config',
  });
  fs.writeFileSync(path.join(cwd, '.env'), 'TRACK_LAUNCH_NAME=from-dotenv\n');
  expect(dryRun(cwd, [])).toMatchObject({ name: 'from-dotenv' });
  expect(dryRun(cwd, ['--module', 'gcc', '--name', 'flag'])).toMatchObject({
    module: ['gcc'],
    name: 'flag',
  });
});

test('submit --help and --help state the precedence', () => {
  for (const args of [['--help'], ['submit', '--help']]) {
    const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(
      'Settings, highest precedence first: command-line flags; TRACK_LAUNCH_<OPTION> environment variables',
    );
  }
});

test('settings never leak into other commands, and a bad config file is named', () => {
  const cwd = tmpDir('settings2');
  const r = spawnSync(process.execPath, [CLI, 'status', 'nosuch'], {
    cwd,
    env: { ...process.env, TRACK_LAUNCH_PARTITION: 'gpu' },
    encoding: 'utf8',
  });
  expect(r.stderr).not.toMatch(/Unknown argument/);
  expect(r.stderr).toMatch(/not a run directory/);
  fs.writeFileSync(path.join(cwd, 'track-launch.config.json'), '[1, 2]');
  const bad = spawnSync(process.execPath, [CLI, 'submit', '--dry-run', '--', 'x'], { cwd, encoding: 'utf8' });
  expect(bad.status).toBe(2);
  expect(bad.stderr).toMatch(/track-launch\.config\.json is not a JSON object of option names and values/);
});
