// A rank's bootstrap under a storm of signals while its command runs: Slurm's preemption signal,
// the step's TERM and the local executor's INT can come at any moment, also during the bootstrap's
// own work. The real sbatch/rank-bootstrap.sh runs a Python command that counts the signals it gets
// and exits 4 after a second; the bootstrap gets USR1, TERM, USR2 and INT in turn every millisecond
// until then. Each run must end by itself with the command's status recorded, having forwarded
// signals to the command and recorded each USR1/USR2 it took in logs/signals.jsonl.
// Seen failing before the fix (bash 5.2): a trap that ran inside the bootstrap's timed read was cut
// off by the read's deadline ("longjmp causes uninitialized stack frame", SIGABRT), and a command
// substitution made while a trapped signal came failed to parse (status 2).
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const BOOTSTRAP = path.resolve(__dirname, '..', '..', '..', 'sbatch', 'rank-bootstrap.sh');
const RUNS = 6;

const COMMAND = String.raw`
import os, signal, sys, time
got = 0
def on(sig, frame):
    global got
    got += 1
for s in (signal.SIGUSR1, signal.SIGUSR2, signal.SIGTERM): signal.signal(s, on)
open(sys.argv[1], "w").close()
time.sleep(1)
with open(sys.argv[2] + ".tmp", "w") as f: f.write(str(got))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
os._exit(4)  # at once: Python's shutdown restores the default actions, and a late TERM would end it
`;

const SCRIPT = String.raw`
boot=$1 base=$2 runs=$3 command=$4
for ((i = 0; i < runs; i++)); do
  d="$base/run-$i"
  mkdir -m 700 "$d"
  TRACK_LAUNCH_RANK=0 TRACK_LAUNCH_WORLD_SIZE=1 TRACK_LAUNCH_TASKS_PER_NODE=1 TRACK_LAUNCH_RUN_DIR="$d" \
    TRACK_LAUNCH_JOB_ID=local TRACK_LAUNCH_SAMPLE_INTERVAL=1 \
    bash "$boot" --launcher local --run-dir "$d" --rdzv-file "$d/rendezvous/local.r0.addr" -- \
    python3 -c "$command" "$d/started" "$d/got" >/dev/null 2>"$d/bootstrap.err" &
  b=$!
  until [[ -e $d/started ]]; do sleep 0.001; done
  sent=0 usr=0 end=$((SECONDS + 30)) how=ended
  while :; do
    case $((sent % 4)) in 0) sig=USR1 ;; 1) sig=TERM ;; 2) sig=USR2 ;; 3) sig=INT ;; esac
    [[ ! -e $d/got ]] && kill -"$sig" "$b" 2>/dev/null || break
    [[ $sig == USR* ]] && usr=$((usr + 1))
    sent=$((sent + 1))
    sleep 0.001
  done
  while kill -0 "$b" 2>/dev/null; do
    if ((SECONDS > end)); then how=hung; kill -KILL "$b"; break; fi
    sleep 0.01
  done
  wait "$b" && rc=0 || rc=$?
  code=$(grep -o '"exit_code":[0-9-]*' "$d/logs/rank-0.json" || echo none)
  recorded=$(grep -c '"signal":"USR[12]"' "$d/logs/signals.jsonl" || true)
  echo "$how rc=$rc $code sent=$sent usr=$usr got=$(cat "$d/got") recorded=$recorded"
  cat "$d/bootstrap.err" >&2
done
`;

test(`a storm of USR1, TERM, USR2 and INT while the command runs: ${RUNS} of ${RUNS} bootstraps end with its status`, () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-signal-storm-'));
  try {
    const r = spawnSync('bash', ['-c', SCRIPT, 'bash', BOOTSTRAP, base, String(RUNS), COMMAND], {
      encoding: 'utf8',
      timeout: 200_000,
    });
    // The bootstrap's only words: the command's status.
    expect(r.stderr).toBe(
      'track-launch: rank 0 on vm exited with status 4\n'.repeat(RUNS).replace(/vm/g, os.hostname()),
    );
    const runs = r.stdout.trim().split('\n');
    expect(runs).toHaveLength(RUNS);
    for (const line of runs) {
      const m = /^(\w+) rc=(\d+) "exit_code":(\d+) sent=(\d+) usr=(\d+) got=(\d+) recorded=(\d+)$/.exec(line);
      expect(m).not.toBeNull();
      const [how, rc, code, sent, usr, got, recorded] = [m![1], ...m!.slice(2).map(Number)];
      expect({ how, rc, code }).toEqual({ how: 'ended', rc: 4, code: 4 });
      // Signals of one kind that come together are delivered once: at most what was sent arrives.
      expect(sent).toBeGreaterThan(20);
      expect(got).toBeGreaterThan(0);
      expect(got).toBeLessThanOrEqual(sent);
      expect(recorded).toBeGreaterThan(0);
      expect(recorded).toBeLessThanOrEqual(usr);
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}, 240_000);
