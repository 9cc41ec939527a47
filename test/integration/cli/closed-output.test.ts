// A reader that stops early (`track-launch logs … | head`): the command ends quietly with 141, as a
// tool killed by SIGPIPE does, not with an internal error; a full disk is said, exit 1.
import { spawnSync } from 'child_process';
import * as path from 'path';
import { cli, clusterEnv, REPO, tmpDir } from '../launcher/cluster';
import { shellQuote } from '../../../launcher';

jest.setTimeout(120_000);

let runDir = '';
beforeAll(async () => {
  runDir = path.join(tmpDir('closed-output'), 'run');
  // 2 ranks of 200,000 lines: far more than a pipe holds
  const r = await cli(
    [
      'submit',
      '--executor',
      'local',
      '-N',
      '2',
      '--run-dir',
      runDir,
      '--follow',
      '--',
      '/usr/bin/python3',
      '-c',
      'for i in range(200000): print("line", i)',
    ],
    { env: clusterEnv(), timeoutMs: 90_000 },
  );
  expect(r.code).toBe(0);
});

/** `node bin/track-launch.js ARGS > TARGET` (or `| READER`) in bash: its exit status and stderr. */
function shell(args: string[], tail: string): { status: number; stderr: string } {
  const cmd = `node bin/track-launch.js ${args.map(shellQuote).join(' ')} ${tail}; echo "status=\${PIPESTATUS[0]}" >&2`;
  const r = spawnSync('bash', ['-c', cmd], { cwd: REPO, env: clusterEnv(), encoding: 'utf8' });
  const status = Number(/status=(\d+)\s*$/.exec(r.stderr)![1]);
  return { status, stderr: r.stderr.replace(/status=\d+\s*$/, '') };
}

test.each([
  ['merged, labelled', [] as string[]],
  ['one rank, byte-exact', ['--rank', '1']],
])('logs (%s) | head -1: exit 141, nothing said', (_what, extra) => {
  expect(shell(['logs', runDir, ...extra], '| head -1 >/dev/null')).toEqual({ status: 141, stderr: '' });
});

test('logs > /dev/full: the failure to write is said, exit 1', () => {
  expect(shell(['logs', runDir], '>/dev/full')).toEqual({
    status: 1,
    stderr: expect.stringMatching(/^track-launch: cannot write to standard output: ENOSPC/),
  });
});
