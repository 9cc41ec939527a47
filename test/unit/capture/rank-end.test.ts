// A rank's end is recorded whatever signals come around it. The local executor's cancel signals the
// job's whole process group, and its script then signals each rank's bootstrap again (it stops all
// ranks once one fails); on Slurm a TERM and a preemption signal can come together. The real
// sbatch/rank-bootstrap.sh runs a command that ignores TERM and exits 3; from the moment the
// command is about to exit, the bootstrap gets SIGTERM every millisecond until it ends. Each run
// must end by itself, with the command's status, and logs/rank-0.json must hold that exit_code.
// Seen failing before the fix: the bootstrap died of the TERM before writing exit_code, or of
// `set -e` in its trap (kill of a process that had just exited), or kept the cut-short wait's 143,
// or waited forever for a child that bash had lost while a trap ran.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const BOOTSTRAP = path.resolve(__dirname, '..', '..', '..', 'sbatch', 'rank-bootstrap.sh');
const RUNS = 25;

const SCRIPT = String.raw`
boot=$1 base=$2 runs=$3
for ((i = 0; i < runs; i++)); do
  d="$base/run-$i"
  mkdir -m 700 "$d"
  TRACK_LAUNCH_RANK=0 TRACK_LAUNCH_WORLD_SIZE=1 TRACK_LAUNCH_TASKS_PER_NODE=1 TRACK_LAUNCH_RUN_DIR="$d" \
    TRACK_LAUNCH_JOB_ID=local TRACK_LAUNCH_SAMPLE_INTERVAL=1 \
    bash "$boot" --launcher local --run-dir "$d" --rdzv-file "$d/rendezvous/local.r0.addr" -- \
    bash -c 'trap "" TERM; : >"$1"; exit 3' rank "$d/exiting" >/dev/null 2>&1 &
  b=$!
  until [[ -e $d/exiting ]]; do sleep 0.001; done
  end=$((SECONDS + 20)) how=ended
  while kill -TERM "$b" 2>/dev/null; do
    if ((SECONDS > end)); then how=hung; kill -KILL "$b"; break; fi
    sleep 0.001
  done
  wait "$b" && rc=0 || rc=$?
  code=$(grep -o '"exit_code":[0-9-]*' "$d/logs/rank-0.json" || echo none)
  echo "$how rc=$rc $code"
done
`;

test(`a rank signalled without pause as it ends: ${RUNS} of ${RUNS} bootstraps end by themselves and record exit_code 3`, () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-rank-end-'));
  try {
    const r = spawnSync('bash', ['-c', SCRIPT, 'bash', BOOTSTRAP, base, String(RUNS)], {
      encoding: 'utf8',
      timeout: 200_000,
    });
    expect(r.stderr).toBe('');
    const lines = r.stdout.trim().split('\n');
    expect(lines).toEqual(Array(RUNS).fill('ended rc=3 "exit_code":3'));
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}, 240_000);
