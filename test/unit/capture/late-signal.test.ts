// A preemption signal that reaches a rank's bootstrap after its command ended (Slurm signals the
// nodes one by one; the ranks of a job stop together) is still recorded, the first one only, and
// does not cut short the drain of the command's logs. The real sbatch/lib/capture.sh runs a command
// that exits at once while a child of it holds its stdout for 2 s and then writes "late"; once the
// command is reaped, its bootstrap gets USR1, USR2, USR1.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const CAPTURE_SH = path.resolve(__dirname, '..', '..', '..', 'sbatch', 'lib', 'capture.sh');

const SCRIPT = String.raw`
. "$1"; d=$2
tl_on_signal() { printf '%s\n' "$1" >>"$d/signals"; }
tl_run_captured "$d/rank-0.out" "$d/rank-0.err" \
  bash -c 'echo "$$" >"$0/pid.tmp" && mv "$0/pid.tmp" "$0/pid"; (sleep 2; echo late) & exit 0' "$d" &
b=$!
until [[ -s $d/pid ]]; do sleep 0.01; done
pid=$(<"$d/pid")
# Reaped by the bootstrap: its wait returned, it is draining the logs.
while kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
sleep 0.2
kill -USR1 "$b"; sleep 0.1; kill -USR2 "$b"; sleep 0.1; kill -USR1 "$b"
wait "$b" && rc=0 || rc=$?
echo "rc=$rc"
`;

test('USR1 during the drain after the command ended: recorded once, and the drain still gets the last line', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-late-signal-'));
  try {
    const r = spawnSync('bash', ['-c', SCRIPT, 'bash', CAPTURE_SH, dir], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ stdout: r.stdout, stderr: r.stderr }).toEqual({ stdout: 'late\nrc=0\n', stderr: '' });
    const signals = path.join(dir, 'signals');
    expect(fs.existsSync(signals) ? fs.readFileSync(signals, 'utf8') : 'no record').toBe('USR1\n');
    expect(fs.readFileSync(path.join(dir, 'rank-0.out'), 'utf8')).toBe('late\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);
