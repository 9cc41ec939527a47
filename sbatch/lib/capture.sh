# shellcheck shell=bash disable=SC2034 # TL_SIGNALLED is read by rank-bootstrap.sh
# Per-rank logs: the user's stdout and stderr go byte-exact to logs/rank-R.out/.err (appended,
# so a requeued job loses nothing) and still to the job's main output; a side file records
# when each line was written, for the tracker's timestamps and the reports' straggler view.

# One line of Unix time (seconds.microseconds) per line read; the bytes themselves are not kept.
tl_stamp_lines() {
  local LC_ALL=C _line
  while IFS= read -r _line || [[ -n $_line ]]; do
    printf '%s\n' "$EPOCHREALTIME"
  done >>"$1"
}

# tl_capture FILE FIFO: copy stdin to stdout and FILE, stamping lines into FILE.ts.
# Slurm signals every process of a step (scancel --signal, --signal=SIG@T, the TERM before a
# kill): the log copiers ignore them and end when the user's process closes its output, so no
# line is lost.
tl_capture() {
  local file=$1 fifo=$2 spid
  trap '' USR1 USR2 TERM INT HUP
  tl_stamp_lines "$file.ts" <"$fifo" &
  spid=$!
  tee -a -- "$file" "$fifo" || true # tee only fails if the job's output is gone; keep the rank alive
  wait "$spid"
}

# The preemption signal received, if any. tl_on_signal (if defined) records it on receipt, not
# once the process exits: by then rank 0's requeue may already have ended this rank's step.
TL_SIGNALLED=""
tl_signalled() {
  TL_SIGNALLED=$1
  if declare -F tl_on_signal >/dev/null; then tl_on_signal "$1"; fi
}

# tl_run_captured OUT ERR CMD...: run CMD, return its exit status once every log byte is written.
tl_run_captured() {
  local out=$1 err=$2 tmp upid opid epid rc
  shift 2
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/track-launch.XXXXXX")
  mkfifo -m 600 "$tmp/out" "$tmp/err" "$tmp/out.ts" "$tmp/err.ts"
  tl_capture "$out" "$tmp/out.ts" <"$tmp/out" &
  opid=$!
  tl_capture "$err" "$tmp/err.ts" <"$tmp/err" >&2 &
  epid=$!
  "$@" <&0 >"$tmp/out" 2>"$tmp/err" &
  upid=$!
  # Forward signals to the user's process (the local executor signals only us), then keep
  # waiting for it to exit.
  trap 'kill -TERM "$upid" 2>/dev/null' TERM INT
  trap 'kill -USR1 "$upid" 2>/dev/null; tl_signalled USR1' USR1
  trap 'kill -USR2 "$upid" 2>/dev/null; tl_signalled USR2' USR2
  while :; do
    wait "$upid"
    rc=$?
    kill -0 "$upid" 2>/dev/null || break
  done
  trap - TERM INT USR1 USR2
  wait "$opid" "$epid" || true
  rm -rf -- "$tmp"
  return "$rc"
}
