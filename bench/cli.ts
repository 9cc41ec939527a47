// 4. CLI start: wall time of `track-launch --help` and `submit --dry-run` against bare `node -e 0`,
// each run as a fresh process, interleaved, median of several runs. The dry run is measured as a
// user on the test cluster runs it (it reads the cluster facts with scontrol), and with --no-check.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BenchOptions, clusterEnv, log, machine, median, round, ROOT, runProc, Target } from './common';

export async function benchCli(o: BenchOptions): Promise<{ result: unknown; targets: Target[] }> {
  const env = { ...clusterEnv(), XDG_STATE_HOME: path.join(o.tmp, 'xdg') };
  const bin = path.join(ROOT, 'bin', 'track-launch.js');
  const runDir = path.join(os.tmpdir(), 'tl-bench-never-written');
  // submit checks that the command's script exists (from the working directory): a user's train.py
  const cwd = path.join(o.tmp, 'cli');
  fs.mkdirSync(cwd, { recursive: true });
  fs.writeFileSync(path.join(cwd, 'train.py'), 'print("train")\n');
  const cases: Record<string, string[]> = {
    node_e_0: ['-e', '0'],
    help: [bin, '--help'],
    dry_run: [
      bin,
      'submit',
      '--dry-run',
      '-N',
      '3',
      '--run-dir',
      runDir,
      '--',
      'python3',
      'train.py',
      '--epochs',
      '10',
    ],
    dry_run_no_check: [
      bin,
      'submit',
      '--dry-run',
      '--no-check',
      '-N',
      '3',
      '--run-dir',
      runDir,
      '--',
      'python3',
      'train.py',
      '--epochs',
      '10',
    ],
  };
  const reps = o.quick ? 5 : 15;
  const ms: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (const [k, a] of Object.entries(cases)) {
    const r = await runProc(process.execPath, a, { env, cwd }); // warm-up, and check it works
    if (r.code !== 0) throw new Error(`${k} exited ${r.code}: ${r.stderr.slice(-500)}`);
  }
  for (let i = 0; i < reps; i++) {
    for (const [k, a] of Object.entries(cases))
      ms[k].push((await runProc(process.execPath, a, { env, cwd })).ms);
  }
  const base = median(ms.node_e_0);
  const row = Object.fromEntries(
    Object.entries(ms).map(([k, v]) => [
      k,
      {
        median_ms: round(median(v)),
        min_ms: round(Math.min(...v)),
        ratio: round(median(v) / base),
        runs_ms: v.map((x) => round(x)),
      },
    ]),
  );
  log(
    `cli: node -e 0 ${base.toFixed(0)} ms, --help ${median(ms.help).toFixed(0)} ms, dry run ${median(ms.dry_run).toFixed(0)} ms (load ${machine().loadavg})`,
  );
  const targets: Target[] = ['help', 'dry_run', 'dry_run_no_check'].map((k) => ({
    what: `CLI start: ${k === 'help' ? '--help' : k === 'dry_run' ? 'submit --dry-run' : 'submit --dry-run --no-check'}`,
    target: '<= 3x node -e 0',
    measured: `${(row[k].ratio as number).toFixed(2)}x (${Math.round(row[k].median_ms as number)} ms vs ${Math.round(base)} ms)`,
    met: (row[k].ratio as number) <= 3,
  }));
  return { result: { reps, cases: row }, targets };
}
