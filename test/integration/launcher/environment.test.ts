// Issue #2: --container (through the fake apptainer in test/fixtures/bin, also as singularity, with
// --nv) and --module (test/fixtures/modulefiles).
import * as fs from 'fs';
import * as path from 'path';
import {
  NODES,
  PYTHON,
  REPO,
  TRAIN,
  checkPolynomialRank,
  cli,
  clusterEnv,
  lines,
  logFile,
  rankFacts,
  ranksWithLogs,
  requireCluster,
  said,
  tmpDir,
} from './cluster';

jest.setTimeout(180_000);

interface ApptainerCall {
  pid: number;
  cwd: string;
  argv: string[];
}

describe('container and modules', () => {
  beforeAll(() => requireCluster());

  it('--container IMAGE --bind SRC:DST: every rank runs `apptainer exec --bind <run-dir> --bind SRC:DST IMAGE cmd...`', async () => {
    const dir = tmpDir('container');
    const runDir = path.join(dir, 'run');
    const log = path.join(dir, 'apptainer.jsonl');
    const fakeBin = path.join(REPO, 'test', 'fixtures', 'bin');
    const env = clusterEnv({ PATH: `${fakeBin}:${process.env.PATH}`, TL_FAKE_APPTAINER_LOG: log });
    const command = [PYTHON, TRAIN, '--epochs', '300', '--log-every', '50'];
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--container',
        '/images/pytorch.sif',
        '--bind',
        '/data:/data',
        '--follow',
        '--poll',
        '0.5',
        '--run-dir',
        runDir,
        '--',
        ...command,
      ],
      { env },
    );
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 0 });

    const calls = lines(log).map((l) => JSON.parse(l) as ApptainerCall);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.pid)).size).toBe(3);
    for (const c of calls) {
      expect(c.argv).toEqual([
        path.join(fakeBin, 'apptainer'),
        'exec',
        '--bind',
        runDir,
        '--bind',
        '/data:/data',
        '/images/pytorch.sif',
        ...command,
      ]);
      expect(c.cwd).toBe(REPO);
    }
    expect(ranksWithLogs(runDir)).toEqual([0, 1, 2]);
    for (const rank of [0, 1, 2]) {
      checkPolynomialRank(runDir, rank, 3, NODES[rank], 300, 50);
      expect(rankFacts(runDir, rank)).toMatchObject({ rank, host: NODES[rank], exit_code: 0 });
    }
    expect(fs.existsSync(path.join(runDir, 'eval', 'evaluation.json'))).toBe(true);
  });

  it('singularity where apptainer is missing, and --nv: every rank runs `singularity exec --bind <run-dir> --nv IMAGE cmd...`', async () => {
    const dir = tmpDir('singularity');
    const runDir = path.join(dir, 'run');
    const log = path.join(dir, 'singularity.jsonl');
    // A PATH holding a singularity (the same stand-in, by another name) and no apptainer.
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.symlinkSync(path.join(REPO, 'test', 'fixtures', 'bin', 'apptainer'), path.join(bin, 'singularity'));
    const env = clusterEnv({ PATH: `${bin}:${process.env.PATH}`, TL_FAKE_APPTAINER_LOG: log });
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--container',
        '/images/cuda.sif',
        '--nv',
        '--follow',
        '--poll',
        '0.5',
        '--run-dir',
        runDir,
        '--',
        'bash',
        '-c',
        'echo "rank $RANK in the container"',
      ],
      { env },
    );
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 0 });
    const calls = lines(log).map((l) => JSON.parse(l) as ApptainerCall);
    expect(calls.map((c) => c.argv)).toEqual(
      [0, 1, 2].map(() => [
        path.join(bin, 'singularity'),
        'exec',
        '--bind',
        runDir,
        '--nv',
        '/images/cuda.sif',
        'bash',
        '-c',
        'echo "rank $RANK in the container"',
      ]),
    );
    for (const rank of [0, 1, 2])
      expect(lines(logFile(runDir, `rank-${rank}.out`))).toEqual([`rank ${rank} in the container`]);
  });

  it("--module tltest/1.0 with MODULEPATH from the submitting shell: every rank sees the module's variable", async () => {
    const runDir = path.join(tmpDir('module'), 'run');
    const env = clusterEnv({ MODULEPATH: path.join(REPO, 'test', 'fixtures', 'modulefiles') });
    delete env.TL_MODULE_TEST;
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--module',
        'tltest/1.0',
        '--follow',
        '--poll',
        '0.5',
        '--run-dir',
        runDir,
        '--',
        'bash',
        '-c',
        'echo "TL_MODULE_TEST=$TL_MODULE_TEST"',
      ],
      { env },
    );
    const jobOut = fs.existsSync(logFile(runDir, 'job.out'))
      ? fs.readFileSync(logFile(runDir, 'job.out'), 'utf8')
      : '(no job.out)';
    expect({ code: r.code, out: said(r), jobOut }).toMatchObject({ code: 0 });
    expect(ranksWithLogs(runDir)).toEqual([0, 1, 2]);
    for (const rank of [0, 1, 2])
      expect(lines(logFile(runDir, `rank-${rank}.out`))).toEqual(['TL_MODULE_TEST=loaded-by-module']);
  });
});
