// Shell completion: the script yargs prints loads in bash and completes command names and options.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { CLI, REPO, tmpDir } from '../launcher/cluster';

let bin: string;

beforeAll(() => {
  if (!fs.existsSync(path.join(REPO, 'dist'))) throw new Error('dist/ is missing: run `npm run build` first');
  bin = tmpDir('completion-bin'); // `track-launch` on PATH, as after `npm install -g`
  fs.symlinkSync(CLI, path.join(bin, 'track-launch'));
});
afterAll(() => fs.rmSync(bin, { recursive: true, force: true }));

/** Runs bash with the completion script sourced; prints COMPREPLY for the words given. */
function complete(
  words: string[],
  env: NodeJS.ProcessEnv = {},
): { code: number | null; out: string; err: string } {
  const script = [
    'source <(track-launch completion) || exit 9',
    'complete -p track-launch',
    `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}`,
    '_track-launch_yargs_completions',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const r = spawnSync('bash', ['-c', script], {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, SHELL: '/bin/bash', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('the bash script loads and registers a completion function for track-launch', () => {
  const r = complete(['track-launch', '']);
  expect(r.code).toBe(0);
  expect(r.out.split('\n')[0]).toBe(
    'complete -o bashdefault -o default -F _track-launch_yargs_completions track-launch',
  );
  expect(r.out).toMatch(/^doctor$/m);
  expect(r.out).toMatch(/^submit$/m);
});

test('completes a command name and an option of a command', () => {
  expect(complete(['track-launch', 'do']).out.split('\n').slice(1).filter(Boolean)).toEqual(['doctor']);
  expect(complete(['track-launch', 'logs', '1', '--ta']).out.split('\n').slice(1).filter(Boolean)).toEqual([
    '--tail',
  ]);
});

test('zsh gets the zsh script when asked through SHELL', () => {
  const r = spawnSync(process.execPath, [CLI, 'completion'], {
    env: { ...process.env, SHELL: '/bin/zsh' },
    encoding: 'utf8',
  });
  expect(r.stdout).toMatch(/#compdef track-launch/);
  expect(r.stdout).toMatch(/compdef _track-launch_yargs_completions track-launch/);
});
