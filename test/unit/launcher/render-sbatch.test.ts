import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { makePlan } from '../../../launcher/plan/plan';
import { renderSbatchScript, sbatchDirectives } from '../../../launcher/plan/render-sbatch';
import { expectGolden, GOLDEN_DIR } from './golden-helper';
import { LOCAL_GOLDEN, NAMED_SPECS, spec } from './specs';

const TRACKER = { node: '/opt/node-20/bin/node', main: '/opt/track-launch/bin/track-launch.js' };
const render = (name: string) =>
  renderSbatchScript(NAMED_SPECS[name], { version: '0.0.0-test', tracker: TRACKER });

describe('rendered sbatch scripts', () => {
  for (const name of Object.keys(NAMED_SPECS)) {
    test(`${name} matches its golden file`, () => expectGolden(`${name}.sbatch`, render(name)));

    test(`${name} passes bash -n and shellcheck`, () => {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-render-')), 'job.sbatch');
      fs.writeFileSync(file, render(name));
      const n = spawnSync('bash', ['-n', file], { encoding: 'utf8' });
      expect(n.stderr).toBe('');
      expect(n.status).toBe(0);
      const sc = spawnSync('shellcheck', ['--severity=style', file], { encoding: 'utf8' });
      expect(sc.stdout).toBe('');
      expect(sc.status).toBe(0);
    });
  }

  test('every golden file belongs to a test case (none is left over, unchecked)', () => {
    const expected = [
      ...Object.keys(NAMED_SPECS).map((n) => `${n}.sbatch`),
      ...LOCAL_GOLDEN.map((n) => `${n}.local.sh`),
    ].sort();
    expect(fs.readdirSync(GOLDEN_DIR).sort()).toEqual(expected);
  });

  test('rendering is deterministic and independent of the environment', () => {
    const before = render('srun-gpus-all-options');
    process.env.SLURM_JOB_ID = '999';
    process.env.TRACK_LAUNCH_PARTITION = 'other';
    try {
      expect(render('srun-gpus-all-options')).toBe(before);
    } finally {
      delete process.env.SLURM_JOB_ID;
      delete process.env.TRACK_LAUNCH_PARTITION;
    }
  });

  test('#SBATCH lines are sorted by option, passthrough options last', () => {
    const lines = sbatchDirectives(NAMED_SPECS['srun-gpus-all-options']);
    const own = lines.slice(0, -1).map((l) => l.split('=')[0]);
    expect(own).toEqual([...own].sort());
    expect(lines[lines.length - 1]).toBe('#SBATCH --mail-type=END');
  });

  test('srun gets --kill-on-bad-exit and --wait so one dead rank ends the job', () => {
    expect(render('srun-basic')).toMatch(/^\s*srun --kill-on-bad-exit=1 --wait=\d+ /m);
    expect(render('torchrun-3x2')).toMatch(/^\s*srun --kill-on-bad-exit=1 --wait=\d+ .*--ntasks-per-node=1/m);
  });

  test('--track job: the plan records this Node.js and this track-launch; the local executor refuses it', () => {
    const tracked = NAMED_SPECS['srun-track-job'];
    const plan = makePlan(tracked, { cwd: '/w', version: 't' });
    const main = path.resolve(__dirname, '..', '..', '..', 'bin', 'track-launch.js');
    expect(plan.script).toContain(`tl_tracker_start ${process.execPath} ${main} "$run_dir"`);
    expect(plan.script).toMatch(/tl_tracker_finish "\$rc" "\$run_dir"\nexit "\$rc"\n$/);
    expect(makePlan(NAMED_SPECS['srun-basic'], { cwd: '/w', version: 't' }).script).not.toContain('tracker');
    expect(() => makePlan(tracked, { cwd: '/w', version: 't', executor: 'local' })).toThrow(
      /--track job needs the Slurm executor/,
    );
  });

  test('the plan names the script in the run dir and submits with --parsable', () => {
    const plan = makePlan(NAMED_SPECS['srun-basic'], { cwd: '/home/user/project', version: 't' });
    expect(plan.scriptPath).toBe('/home/user/project/runs/train-20261202-101112/job.sbatch');
    expect(plan.argv.slice(0, 2)).toEqual(['sbatch', '--parsable']);
    expect(plan.argv[plan.argv.length - 1]).toBe(plan.scriptPath);
    expect(plan.layout).toBe('3 node(s) x 1 task(s) per node = world size 3');
    const gpu = makePlan(spec({ nodes: 2, gpusPerNode: 4, command: ['x'] }), { cwd: '/w', version: 't' });
    expect(gpu.layout).toBe('2 node(s) x 4 task(s) per node = world size 8, 1 GPU(s) per task');
  });
});
