# shellcheck shell=bash source-path=SCRIPTDIR
# The in-allocation tracker (submit --track job): `track-launch ingest --follow` beside the ranks on the
# batch host, sourced by the batch script. Its end: once the ranks' step has returned, the script writes
# the step's exit status to logs/ranks.done (renamed into place, never seen half-written); the tracker
# then sends the rest, ends the runs COMPLETED (0) or FAILED, and exits. The script waits for it at most
# TRACK_LAUNCH_TRACKER_WAIT seconds (default 120), then stops it. A time limit or scancel ends both at
# once: the next tracker (a follower, `ingest`, `ingest --all`) sends the rest and ends the runs. A
# requeue (logs/signals.jsonl) stops the tracker without ending the runs: the next start goes on.
# Nothing here fails the job: a tracker that cannot start or finish is said in the job's output.

TL_TRACKER_LIB=${BASH_SOURCE[0]%/*}
[[ $TL_TRACKER_LIB == "${BASH_SOURCE[0]}" ]] && TL_TRACKER_LIB=.
# shellcheck source=proc.sh
. "$TL_TRACKER_LIB/proc.sh"

tl_tracker_pid=""

tl_tracker_warn() { printf 'track-launch: WARNING: %s\n' "$1" >&2; }

# tl_tracker_start NODE MAIN RUN_DIR: start the tracker in the background (tl_tracker_pid), or say why
# the job runs untracked: NODE must be Node.js >= 20, MAIN track-launch's entry point, as at submit.
tl_tracker_start() {
  local node=$1 main=$2 run_dir=$3 major="" why=""
  local hint="the job runs untracked here; track it from the login node: track-launch ingest --follow $run_dir"
  rm -f -- "$run_dir/logs/ranks.done" "$run_dir/logs/ranks.done.tmp"
  if [[ -z ${MLFLOW_TRACKING_URI:-} ]]; then
    # submit keeps a URI with credentials in it (user:password@) out of the job's environment
    why="MLFLOW_TRACKING_URI is not in the job's environment (one with credentials in it is kept out: put them in ~/.mlflow/credentials)"
  elif [[ ! -x $node ]]; then
    why="Node.js is not at $node on $(hostname) (--track job runs it there, as on the login node)"
  else
    major=$("$node" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null) || major=""
    if [[ ! $major =~ ^[0-9]+$ ]] || ((major < 20)); then
      why="$node on $(hostname) is not Node.js >= 20 (it says '${major:-nothing}')"
    elif [[ ! -r $main ]]; then
      why="track-launch is not at $main on $(hostname) (install it on a filesystem the compute nodes mount)"
    fi
  fi
  if [[ -n $why ]]; then
    tl_tracker_warn "$why; $hint"
    return 0
  fi
  "$node" "$main" ingest --follow --placement job --no-report "$run_dir" </dev/null >>"$run_dir/logs/tracker.out" 2>&1 &
  tl_tracker_pid=$!
  printf 'track-launch: tracking inside the allocation: pid %s on %s, output in %s\n' \
    "$tl_tracker_pid" "$(hostname)" "$run_dir/logs/tracker.out" >&2
}

# tl_tracker_finish RC RUN_DIR: tell the tracker the ranks ended with RC, then wait for it to finish.
tl_tracker_finish() {
  local rc=$1 run_dir=$2 wait_s=${TRACK_LAUNCH_TRACKER_WAIT:-120} file=$2/logs/ranks.done trc=0 i
  [[ -n $tl_tracker_pid ]] || return 0
  if [[ ! $wait_s =~ ^[0-9]{1,6}$ ]]; then
    tl_tracker_warn "TRACK_LAUNCH_TRACKER_WAIT='$wait_s' is not a number of seconds; waiting 120 s"
    wait_s=120
  fi
  if grep -qs -- "\"restart\":${SLURM_RESTART_COUNT:-0},\"requeue\":true" "$run_dir/logs/signals.jsonl"; then
    # Requeued (rank 0 asked Slurm): the runs go on with the next start. The tracker stops as on
    # Ctrl-C: what it sent is saved, the runs are not ended.
    kill -INT "$tl_tracker_pid" 2>/dev/null || true
  elif ! { printf '%s\n' "$rc" >"$file.tmp" && mv -f -- "$file.tmp" "$file"; }; then
    tl_tracker_warn "cannot write $file: the tracker is stopped without ending the runs"
    wait_s=0
  fi
  for ((i = 0; i < wait_s * 5; i++)); do
    tl_running "$tl_tracker_pid" || break
    sleep 0.2
  done
  if tl_running "$tl_tracker_pid"; then
    tl_tracker_warn "the tracker did not finish within $wait_s s (TRACK_LAUNCH_TRACKER_WAIT); stopped: what it did not send, \`track-launch ingest $run_dir\` sends"
    kill -TERM "$tl_tracker_pid" 2>/dev/null || true
  fi
  wait "$tl_tracker_pid" || trc=$?
  tl_tracker_pid=""
  if ((trc != 0)); then
    tl_tracker_warn "the tracker exited with status $trc (its output: $run_dir/logs/tracker.out); bring the runs up to date with: track-launch ingest $run_dir"
  fi
  return 0
}
