// Issue #2: --dry-run and refused submissions write nothing: no run dir, no job index entry.
import * as fs from 'fs';
import * as path from 'path';
import { cli, clusterEnv, requireCluster, said, tmpDir } from './cluster';

jest.setTimeout(180_000);

/** Every path under dir, relative, sorted (empty: nothing was written). */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of fs.readdirSync(d)) {
      const p = path.join(d, n);
      out.push(path.relative(dir, p));
      if (fs.statSync(p).isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

describe('dry run and refusals', () => {
  beforeAll(() => requireCluster());

  it('--dry-run prints the script and writes nothing', async () => {
    const env = clusterEnv();
    const base = tmpDir('dry');
    const x = path.join(base, 'x');
    const src = tmpDir('dry-src'); // the script must exist: submit checks it before queueing
    fs.writeFileSync(path.join(src, 'train.py'), 'print("hi")\n');
    const r = await cli(
      ['submit', '-N', '3', '--dry-run', '--run-dir', x, '--', 'python3', 'train.py', '--epochs', '5'],
      { env, cwd: src },
    );
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 0 });
    expect(r.stdout).toContain('#!/bin/bash');
    // The plan's head: layout, what the partition offers, and the exact submit command.
    expect(r.stdout).toMatch(/^# layout: +3 node\(s\) x 1 task\(s\) per node = world size 3$/m);
    expect(r.stdout).toMatch(/^# cluster: partition debug \(default\): 3 of 3 nodes fit \(tlnode\[1-3\]\)/m);
    expect(r.stdout).toContain(
      `# command: sbatch --parsable --output=${x}/logs/job.out --chdir=${src} ${x}/job.sbatch`,
    );
    expect(r.stdout).toMatch(/^#SBATCH --nodes=3$/m);
    expect(r.stdout).toContain('srun --kill-on-bad-exit=1');
    expect(r.stdout).toContain(`run_dir=${x}`);
    expect(r.stdout).toMatch(/-- python3 train\.py --epochs 5 \|\| rc=\$\?$/m);
    expect(fs.existsSync(x)).toBe(false);
    expect(tree(base)).toEqual([]);
    expect(tree(env.XDG_STATE_HOME!)).toEqual([]);
  });

  it('the pre-check refuses an unknown partition or an oversized request before anything is written', async () => {
    const env = clusterEnv();
    const base = tmpDir('precheck');
    for (const [args, message] of [
      [['--partition', 'nosuch'], /partition/],
      [['-N', '4'], /--nodes: 4 is more than partition debug holds \(3 nodes: tlnode\[1-3\]\)/],
      [['--mem', '64G'], /--mem: .* is more than any node of partition debug has/],
    ] as Array<[string[], RegExp]>) {
      const r = await cli(['submit', ...args, '--run-dir', path.join(base, 'r'), '--', 'true'], { env });
      expect({ code: r.code, out: said(r) }).toMatchObject({ code: 2 });
      expect(r.stderr).toMatch(message);
    }
    expect(tree(base)).toEqual([]);
    expect(tree(env.XDG_STATE_HOME!)).toEqual([]);
  });

  it('--nodes 0 exits 2, names --nodes, and writes nothing', async () => {
    const env = clusterEnv();
    const base = tmpDir('nodes0');
    const y = path.join(base, 'y');
    const r = await cli(['submit', '--nodes', '0', '--run-dir', y, '--', 'x'], { env });
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 2 });
    expect(r.stderr).toContain('--nodes');
    expect(r.stdout).toBe('');
    expect(fs.existsSync(y)).toBe(false);
    expect(tree(base)).toEqual([]);
    expect(tree(env.XDG_STATE_HOME!)).toEqual([]);
  });

  // --no-check: otherwise the pre-check refuses the partition (exit 2) before sbatch is asked.
  it('sbatch refusing (--partition nosuch) exits 4, names the partition, and leaves no run dir', async () => {
    const env = clusterEnv();
    const base = tmpDir('nosuch');
    const z = path.join(base, 'z');
    const r = await cli(
      ['submit', '-N', '3', '--no-check', '--partition', 'nosuch', '--run-dir', z, '--', 'x'],
      { env },
    );
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 4 });
    expect(r.stderr).toMatch(/partition/i);
    expect(r.stderr).toContain('nosuch');
    expect(fs.existsSync(z)).toBe(false);
    expect(tree(base)).toEqual([]);
    expect(tree(env.XDG_STATE_HOME!)).toEqual([]);
  });

  it('sbatch refusing a --run-dir whose parents do not exist yet leaves none of them behind', async () => {
    const env = clusterEnv();
    const base = tmpDir('nosuch-deep');
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--no-check',
        '--partition',
        'nosuch',
        '--run-dir',
        path.join(base, 'a', 'b', 'run'),
        '--',
        'x',
      ],
      { env },
    );
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 4 });
    expect(tree(base)).toEqual([]);
  });

  it('sbatch refusing a job in an existing empty --run-dir leaves it empty, so the same --run-dir can be used again', async () => {
    const env = clusterEnv();
    const dir = path.join(tmpDir('nosuch-existing'), 'run');
    fs.mkdirSync(dir);
    const r = await cli(
      ['submit', '-N', '3', '--no-check', '--partition', 'nosuch', '--run-dir', dir, '--', 'x'],
      { env },
    );
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 4 });
    expect(tree(dir)).toEqual([]);
    // The corrected submission into the same directory is accepted and runs.
    const again = await cli(
      ['submit', '-N', '3', '--follow', '--poll', '0.5', '--run-dir', dir, '--', 'true'],
      { env },
    );
    expect({ code: again.code, out: said(again) }).toMatchObject({ code: 0 });
  });
});
