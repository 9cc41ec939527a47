import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { renderLocalScript } from '../../../launcher/plan/render-local';
import { expectGolden } from './golden-helper';
import { LOCAL_GOLDEN, NAMED_SPECS } from './specs';

describe('local executor script', () => {
  for (const name of LOCAL_GOLDEN) {
    const script = renderLocalScript(NAMED_SPECS[name], { version: '0.0.0-test' });
    test(`${name} matches its golden file`, () => expectGolden(`${name}.local.sh`, script));
    test(`${name} passes bash -n and shellcheck`, () => {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-local-')), 'job.local.sh');
      fs.writeFileSync(file, script);
      expect(spawnSync('bash', ['-n', file]).status).toBe(0);
      const sc = spawnSync('shellcheck', [file], { encoding: 'utf8' });
      expect(sc.stdout).toBe('');
    });
  }

  test('starts world-size ranks through the bootstrap in local mode', () => {
    const s = renderLocalScript(NAMED_SPECS['torchrun-3x2'], { version: 't' });
    expect(s).toContain('for ((r = 0; r < 6; r++)); do');
    expect(s).toContain('TRACK_LAUNCH_WORLD_SIZE=6 TRACK_LAUNCH_TASKS_PER_NODE=2');
    expect(s).toContain('--launcher local');
    expect(s).not.toContain('--launcher torchrun');
  });
});

// A stand-in bootstrap: rank 0 ends with 0 and rank 1 is killed by SIGKILL once $TL_FLAG exists;
// rank 2 runs until it is stopped (as a DDP peer waits for a dead rank) and records the TERM.
const BOOT = `#!/bin/bash
echo "$$" >"$TL_OUT/rank$TRACK_LAUNCH_RANK.pid"
trap 'echo term >"$TL_OUT/rank$TRACK_LAUNCH_RANK.term"; exit 143' TERM
if ((TRACK_LAUNCH_RANK == 2)); then while :; do sleep 0.05; done; fi
while [[ ! -e $TL_FLAG ]]; do sleep 0.01; done
if ((TRACK_LAUNCH_RANK == 1)); then kill -KILL "$$"; fi
exit 0
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, ok: () => boolean, ms = 20_000, why = () => ''): Promise<void> {
  for (const end = Date.now() + ms; !ok(); await sleep(10)) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}${why()}`);
  }
}
/** The state letter of a process (R, S, T, Z, ...), or '-' if it is gone. */
const stateOf = (pid: number) => {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0];
  } catch {
    return '-';
  }
};
const zombie = (pid: number) => stateOf(pid) === 'Z';

describe('local executor script, run: a rank that dies stops the others', () => {
  test('a rank killed by a signal as another ends beside it: the job ends 137 and stops the rest', async () => {
    // bash's `wait -n` loses a signalled job that died while the shell was not waiting for it. The
    // supervisor is stopped while rank 0 ends (0) and rank 1 is killed, so it finds both dead at once.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-local-run-'));
    const runDir = path.join(dir, 'run');
    fs.mkdirSync(path.join(runDir, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(runDir, 'bin', 'rank-bootstrap.sh'), BOOT);
    const spec = { ...NAMED_SPECS['srun-basic'], runDir };
    const file = path.join(runDir, 'job.local.sh'); // its run directory is where it lies
    fs.writeFileSync(file, renderLocalScript(spec, { version: 't' }));
    const out = path.join(dir, 'out');
    fs.mkdirSync(out);
    const flag = path.join(out, 'flag');
    const job = spawn('bash', [file], {
      env: { ...process.env, TL_OUT: out, TL_FLAG: flag },
      stdio: 'ignore',
    });
    const ended = new Promise<number | null>((r) => job.on('exit', (code) => r(code)));
    // 0 until the rank wrote its pid
    const pidOf = (r: number) => {
      try {
        return Number(fs.readFileSync(path.join(out, `rank${r}.pid`), 'utf8'));
      } catch {
        return 0; // not written yet
      }
    };
    const states = () =>
      `: job ${stateOf(job.pid!)}, ranks ${[0, 1, 2].map((r) => `${pidOf(r)} ${stateOf(pidOf(r))}`).join(', ')}`;
    try {
      await until('3 ranks', () => [0, 1, 2].every((r) => pidOf(r) > 0));
      job.kill('SIGSTOP');
      // Stopped only once it runs again: under load the ranks could end first and be reaped by the
      // job's wait on its way to the stop (the flaky run: job stopped, ranks 0 and 1 gone, not
      // zombies, the wait for them timed out and the SIGTERM after it hung on the stopped job).
      await until('the job to stop', () => stateOf(job.pid!) === 'T', 20_000, states);
      fs.writeFileSync(flag, '');
      await until('ranks 0 and 1 to end', () => zombie(pidOf(0)) && zombie(pidOf(1)), 20_000, states);
      job.kill('SIGCONT');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<string>(
        (r) => (timer = setTimeout(() => r('still running after 10 s'), 10_000)),
      );
      const code = await Promise.race([ended, late]);
      clearTimeout(timer);
      expect(code).toBe(137);
      expect(fs.readFileSync(path.join(out, 'rank2.term'), 'utf8')).toBe('term\n');
    } finally {
      // SIGKILL: a job left stopped would never act on a SIGTERM (and the test would hang on it)
      job.kill('SIGKILL'); // (no effect on one that has ended)
      await ended;
      for (const r of [0, 1, 2])
        if (pidOf(r) > 0 && stateOf(pidOf(r)) !== '-') process.kill(pidOf(r), 'SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
