// Issue #2: the user's arguments reach the command byte-exact through the whole real path:
// submit -> job.sbatch -> sbatch -> srun -> rank-bootstrap.sh -> the command. Nothing in them expands.
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import {
  PYTHON,
  REPO,
  cli,
  clusterEnv,
  jobRecord,
  lines,
  logFile,
  ranksWithLogs,
  requireCluster,
  said,
  tmpDir,
} from './cluster';

jest.setTimeout(180_000);

describe('hostile arguments', () => {
  beforeAll(() => requireCluster());

  it.each([
    ['srun', []],
    ['mpiexec', ['--launcher', 'mpiexec']],
    ['torchrun', ['--launcher', 'torchrun']],
    ['srun in a --container', ['--container', '/images/pytorch.sif']],
  ])('reach every rank byte-exact, and no shell syntax in them runs (%s)', async (_name, opts) => {
    const env = clusterEnv({
      TL_IT_SECRET: 'expanded-from-env',
      PATH: `${path.join(REPO, 'test', 'fixtures', 'bin')}:${process.env.PATH}`,
    });
    const runDir = path.join(tmpDir('hostile'), 'run');
    const tag = crypto.randomBytes(6).toString('hex');
    const pwned = [
      `/tmp/pwned-${tag}-dollar`,
      `/tmp/pwned-${tag}-tick`,
      `/tmp/pwned-${tag}-semi`,
      `/tmp/pwned-${tag}-nl`,
      `/tmp/pwned-${tag}-amp`,
    ];
    const args = [
      "it's",
      '"double" quotes',
      `$(touch ${pwned[0]})`,
      `\`touch ${pwned[1]}\``,
      `; touch ${pwned[2]}`,
      `a\ntouch ${pwned[3]}`,
      `x && touch ${pwned[4]} &`,
      '*',
      '/*',
      '~',
      '-n',
      '--',
      '--epochs=3',
      '$TL_IT_SECRET ${TL_IT_SECRET} $HOME',
      '\\back\\slash\\',
      'tab\there',
      '  spaces  around  ',
      'ünïcödé ✓ 日本語 🚀',
      '%j %N %%',
      '{a,b} [ab] !x',
      '',
    ];
    const command = [PYTHON, '-c', 'import json,sys; print(json.dumps(sys.argv[1:]))', ...args];
    const r = await cli(
      ['submit', '-N', '3', ...opts, '--follow', '--poll', '0.5', '--run-dir', runDir, '--', ...command],
      { env },
    );
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 0 });

    expect(jobRecord(runDir).spec.command).toEqual(command);
    expect(ranksWithLogs(runDir)).toEqual([0, 1, 2]);
    for (const rank of [0, 1, 2]) {
      const out = lines(logFile(runDir, `rank-${rank}.out`));
      expect(out).toHaveLength(1);
      expect(JSON.parse(out[0])).toEqual(args);
    }
    for (const f of pwned) expect({ file: f, exists: fs.existsSync(f) }).toEqual({ file: f, exists: false });
  });
});
