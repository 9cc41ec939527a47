// submit --follow's progress in a real terminal: tmux (its own server, on its own socket) runs it in
// a pseudo-terminal of 60 and of 200 columns, and the screen is read back with capture-pane. The
// line must stay one row, cut to the width, rewritten in place (no stale copies), each fact once;
// piped, it is one plain line per change of state.
import { spawnSync } from 'child_process';
import * as path from 'path';
import { cli, clusterEnv, REPO, sleep, tmpDir } from '../launcher/cluster';
import { shellQuote } from '../../../launcher';

jest.setTimeout(120_000);

/** A rank that prints a metric line every 0.2 s for about 6 s: the line refreshes many times. */
const JOB = [
  '/usr/bin/python3',
  '-c',
  'import json, time\nfor i in range(30):\n    print(json.dumps({"track_launch": 1, "step": i, "metrics": {"loss": 1.0 / (i + 1)}}), flush=True)\n    time.sleep(0.2)\n',
];

const submitArgs = (runDir: string) => [
  'submit',
  '--executor',
  'local',
  '-N',
  '3',
  '--run-dir',
  runDir,
  '--metrics-format',
  'jsonl',
  '--follow',
  '--poll',
  '1',
  '--',
  ...JOB,
];

function tmux(socket: string, args: string[]): string {
  const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** The screen's rows once `submit --follow` ended in a `width`-column terminal. */
async function screenAfterSubmit(width: number): Promise<string[]> {
  const runDir = path.join(tmpDir(`tty-${width}`), 'run');
  const socket = `tl-progress-${process.pid}-${width}`;
  const env = clusterEnv();
  delete env.MLFLOW_TRACKING_URI; // offline: the line counts spooled points
  const vars = ['PATH', 'HOME', 'XDG_STATE_HOME', 'TRACK_LAUNCH_TRACK'].flatMap((k) =>
    env[k] === undefined ? [] : [`${k}=${shellQuote(env[k]!)}`],
  );
  const command = `cd ${shellQuote(REPO)} && env -u MLFLOW_TRACKING_URI ${vars.join(' ')} node bin/track-launch.js ${submitArgs(runDir).map(shellQuote).join(' ')}; echo "EXIT=$?"; sleep 60`;
  tmux(socket, ['new-session', '-d', '-s', 'progress', '-x', String(width), '-y', '50', command]);
  try {
    const end = Date.now() + 90_000;
    for (;;) {
      const screen = tmux(socket, ['capture-pane', '-p', '-t', 'progress']);
      if (/^EXIT=\d+$/m.test(screen)) return screen.split('\n');
      if (Date.now() > end) throw new Error(`submit did not end in 90 s; the screen:\n${screen}`);
      await sleep(500);
    }
  } finally {
    tmux(socket, ['kill-server']);
  }
}

/** The rows of submit's own progress line: `job <id>: <STATE>  ranks started ...`. */
const progressRows = (rows: string[]) =>
  rows.filter((r) => /^job local-\S+: [A-Z]+ {2}ranks started/.test(r));

test.each([60, 200])(
  'a %i-column terminal: one progress row, cut to the width, each fact once',
  async (width) => {
    const rows = await screenAfterSubmit(width);
    const said = rows.join('\n');
    expect(said).toMatch(/^EXIT=0$/m);
    const progress = progressRows(rows);
    expect({ progress, rows }).toEqual({ progress: [expect.any(String)], rows });
    const [row] = progress;
    // one column spare, so it never wraps (a wrapped line left a stale copy at each refresh)
    expect([...row].length).toBeLessThan(width);
    expect(row.match(/ranks/g)).toHaveLength(1);
    expect(row.match(/COMPLETED|RUNNING|PENDING/g)).toHaveLength(1);
    if (width === 200) {
      // room for everything: not cut, and the tracking part is there
      expect(row).not.toContain('…');
      expect(row).toMatch(/ranks started 3\/3 {2}\d+s {2}\| \d+ points spooled \(offline\)/);
    } else {
      expect(row).toMatch(/…$/);
    }
  },
);

test('piped (no terminal): one plain line per change of state, no carriage returns', async () => {
  const runDir = path.join(tmpDir('tty-pipe'), 'run');
  const env = clusterEnv();
  delete env.MLFLOW_TRACKING_URI;
  const r = await cli(submitArgs(runDir), { env, timeoutMs: 90_000 });
  expect(r.code).toBe(0);
  expect(r.stderr).not.toContain('\r');
  const lines = progressRows(r.stderr.split('\n'));
  const states = lines.map((l) => /^job \S+: (\S+ {2}ranks started \d+\/\d+)/.exec(l)![1]);
  // each line says something the one before did not
  expect(states.filter((s, i) => i > 0 && s === states[i - 1])).toEqual([]);
  expect(states[states.length - 1]).toBe('COMPLETED  ranks started 3/3');
});
