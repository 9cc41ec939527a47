#!/bin/bash
# shellcheck disable=SC2016,SC2089,SC2090 # user values are single-quoted on purpose: nothing in them expands
# Rendered by track-launch 0.0.0-test for the local executor: 3 rank(s) on this machine, backend gloo.
set -uo pipefail

# The run directory is the one this script lies in, wherever it was copied to: the script also runs
# by hand, without the local supervisor and Node.js (test/gpu/), and each rank's exit code is then in
# logs/rank-<R>.json, from which `status` and `ingest` take the state.
run_dir=${BASH_SOURCE[0]%/*}
[[ $run_dir == "${BASH_SOURCE[0]}" ]] && run_dir=.
[[ $run_dir == /* ]] || run_dir=$PWD/$run_dir
export TRACK_LAUNCH_RUN_DIR="$run_dir"
export TRACK_LAUNCH_JOB_ID="${TRACK_LAUNCH_JOB_ID:-local}"
export TRACK_LAUNCH_SAMPLE_INTERVAL=10

rdzv_file="$run_dir/rendezvous/$TRACK_LAUNCH_JOB_ID.r0.addr"
(umask 077 && mkdir -p "$run_dir/rendezvous" "$run_dir/logs")
rm -f "$rdzv_file"
pids=()
# Like srun --kill-on-bad-exit: the first rank to fail, or a signal to this script, stops all.
stop_all() { kill -TERM "${pids[@]}" 2>/dev/null; wait; rm -f "$rdzv_file"; exit "$1"; }
trap 'stop_all 143' TERM
trap 'stop_all 130' INT
for ((r = 0; r < 3; r++)); do
  TRACK_LAUNCH_RANK=$r TRACK_LAUNCH_WORLD_SIZE=3 TRACK_LAUNCH_TASKS_PER_NODE=1 \
    bash "$run_dir/bin/rank-bootstrap.sh" --launcher local --run-dir "$run_dir" --rdzv-file "$rdzv_file" --timeout 120 --backend gloo \
    -- python3 examples/polynomial/train.py &
  pids+=("$!")
done
# A rank's status is read by its pid once it is gone (`wait PID`: bash keeps it). `wait -n` only
# says when to look: it misses a rank killed by a signal when another rank ends beside it (bash has
# then reported it), and the others would wait for that rank forever; a 1 s tick bounds this.
running=("${pids[@]}")
tick=
while ((${#running[@]})); do
  if [[ -z $tick ]] || ! kill -0 "$tick" 2>/dev/null; then
    sleep 1 >/dev/null 2>&1 &
    tick=$!
  fi
  wait -n "${running[@]}" "$tick"
  left=()
  for pid in "${running[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      left+=("$pid")
      continue
    fi
    wait "$pid"
    rc=$?
    if ((rc != 0)); then stop_all "$rc"; fi
  done
  running=("${left[@]}")
done
rm -f "$rdzv_file"
