# shellcheck shell=bash source-path=SCRIPTDIR disable=SC2034 # TL_SIGNALLED is read by rank-bootstrap.sh
# Per-rank logs: the user's stdout and stderr go byte-exact to logs/rank-R.out/.err (appended, so a
# requeued job loses nothing) and still to the job's main output; a side file (.ts) records when each
# line was written. The copier is capture.py, run by the rank's own python3; where that cannot run,
# the bash copier below does the same job more slowly.

TL_CAPTURE_LIB=${BASH_SOURCE[0]%/*}
[[ $TL_CAPTURE_LIB == "${BASH_SOURCE[0]}" ]] && TL_CAPTURE_LIB=.
# shellcheck source=proc.sh
. "$TL_CAPTURE_LIB/proc.sh"

# One line of Unix time (seconds.microseconds) per line read; the bytes themselves are not kept.
tl_stamp_lines() {
  local LC_ALL=C _line
  while IFS= read -r _line || [[ -n $_line ]]; do
    printf '%s\n' "$EPOCHREALTIME"
  done >>"$1"
}

# The bash copier: tee copies the bytes; `read` takes one byte per system call from a pipe, so the
# stamper reads each line squeezed by tr to "x\n" (or "\n"), unbuffered so that lines arrive with
# their block. Without stdbuf, the stamper reads the whole stream (slow but right).
tl_capture_bash() {
  local file=$1 fifo=$2 spid
  if stdbuf -o0 true 2>/dev/null; then
    LC_ALL=C stdbuf -o0 tr -cs '\n' x <"$fifo" | tl_stamp_lines "$file.ts" &
  else
    tl_stamp_lines "$file.ts" <"$fifo" &
  fi
  spid=$!
  tee -a -- "$file" "$fifo" || true # tee only fails if the job's output is gone; keep the rank alive
  wait "$spid"
}

# tl_capture FILE FIFO PYTHON: copy stdin to stdout and FILE, stamping lines into FILE.ts (FIFO is for
# the bash copier; PYTHON, if not empty, runs capture.py). Slurm signals every process of a step: the
# copiers ignore signals and end when the user's process closes its output, after writing all they
# read. With TL_CAPTURE_READY_FD set, the copier writes one byte there once it reads, and closes it.
tl_capture() {
  local file=$1 fifo=$2 py=$3
  trap '' USR1 USR2 TERM INT HUP
  # A python3 that cannot run the helper (too old, broken) fails before reading: the bash copier
  # then takes the whole stream; one that fails later leaves it the rest.
  if [[ -n $py ]] && "$py" -I -S "$TL_CAPTURE_LIB/capture.py" "$file"; then return 0; fi
  if [[ -n ${TL_CAPTURE_READY_FD:-} ]]; then
    # (a byte too many, if capture.py sent its own before failing, is never read: harmless)
    { printf r >&"$TL_CAPTURE_READY_FD"; } 2>/dev/null || true
    exec {TL_CAPTURE_READY_FD}>&-
  fi
  tl_capture_bash "$file" "$fifo"
}

# Signals are handled in two steps, because of two faults of bash 5.2 under signals:
# - bash runs a trap inside a pending read, and the timed read's deadline then jumps out of whatever
#   the trap is doing. A trap that did more than an assignment (a function, a command substitution)
#   was left half run, and bash later died of it ("longjmp causes uninitialized stack frame").
#   So a trap only appends a letter to a queue (T for TERM or INT, 1 for USR1, 2 for USR2); the
#   loops that wait hand the queue to tl_take_signals between reads.
# - a command or process substitution made while a trapped signal comes may fail to parse
#   ("unexpected EOF while looking for matching `)'", status 2). So none is made while these traps
#   are set: tl_run_captured ignores the signals before it returns, and tl_on_signal makes none.
_tl_sigq='' _tl_sigs_taken=0
tl_queue_signals() {
  trap '_tl_sigq+=T' TERM INT
  trap '_tl_sigq+=1' USR1
  trap '_tl_sigq+=2' USR2
}

# The preemption signal received, if any. tl_on_signal (if defined) records it on receipt, not
# once the process exits: by then rank 0's requeue may already have ended this rank's step.
TL_SIGNALLED=""
tl_signalled() {
  TL_SIGNALLED=$1
  if declare -F tl_on_signal >/dev/null; then tl_on_signal "$1"; fi
}

# tl_take_signals: what the queued signals ask. While tl_run_captured's CMD runs (_tl_forwarding),
# each goes to CMD and a USR1 or USR2 is recorded; after CMD ended, only
# a first USR1 or USR2 is recorded (Slurm reaches the nodes one by one, so it may come after this
# rank stopped with the others), never forwarded. A failed kill (CMD may have just exited) must not
# end a caller under set -e.
_tl_forwarding=0
tl_take_signals() {
  local s
  while ((_tl_sigs_taken < ${#_tl_sigq})); do
    s=${_tl_sigq:_tl_sigs_taken:1}
    _tl_sigs_taken=$((_tl_sigs_taken + 1))
    [[ $s == T ]] && s=TERM || s=USR$s
    if ((_tl_forwarding)); then
      kill -"$s" "$upid" 2>/dev/null || true
      [[ $s == TERM ]] || tl_signalled "$s"
    elif [[ $s != TERM && -z $TL_SIGNALLED ]]; then
      tl_signalled "$s"
    fi
  done
}

# tl_wait_pid PID DONE TICK: waits for child PID and returns its exit status, queued signals taken
# meanwhile. Not in a blocking `wait` (bash loses a child that ends while a trap cuts `wait` short):
# PID is checked as each timed read returns, on DONE every 0.1 s until its end of file, then on TICK
# (never data) every 10 ms; once PID has ended, `wait` gives its status at once, unless a signal
# comes meanwhile and cuts it short (128 + the signal's number, PID not yet reaped): then it asks
# again. bash keeps a reaped child's status, so asking again after a real 143 gives 143 again.
tl_wait_pid() {
  local fd=$2 t=0.1 rc _r queued
  while tl_take_signals; tl_running "$1"; do
    rc=0
    read -r -t "$t" -u "$fd" _r || rc=$?
    if ((rc == 1)); then fd=$3 t=0.01; fi
  done
  while :; do
    queued=${#_tl_sigq}
    wait "$1" && rc=0 || rc=$?
    ((rc > 128 && ${#_tl_sigq} != queued)) || break
  done
  tl_take_signals
  return "$rc"
}

# tl_run_captured OUT ERR CMD...: run CMD, return its exit status once every log byte is written,
# and set TL_CMD_TICKS to the CPU time CMD used (clock ticks, with its waited-for children's).
# TL_CAPTURE_PYTHON (if set, even empty) replaces the python3 found on PATH. It returns with TERM,
# INT, USR1 and USR2 ignored: a second signal must not end the caller before it records how CMD
# ended. A first USR1 or USR2 that comes while the logs drain is still recorded.
# CMD starts once both copiers read its pipes (a FIFO handshake), so its first lines get the time they
# were written. The FIFOs are opened read-write here first, so no open waits for the other side;
# nobody keeps those ends, so a copier still sees end of file when CMD's last writer closes.
tl_run_captured() {
  local out=$1 err=$2 tmp upid rc rc2 py ready orw erw ow ew dw dr tick _r
  shift 2
  py=${TL_CAPTURE_PYTHON-$(command -v python3 || true)}
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/track-launch.XXXXXX")
  mkfifo -m 600 "$tmp/out" "$tmp/err" "$tmp/out.ts" "$tmp/err.ts" "$tmp/ready" "$tmp/done" "$tmp/tick"
  exec {ready}<>"$tmp/ready" {orw}<>"$tmp/out" {erw}<>"$tmp/err" {dw}<>"$tmp/done"
  # The copiers (and what they run) hold dw until they end: its read end sees end of file then.
  TL_CAPTURE_READY_FD=$ready tl_capture "$out" "$tmp/out.ts" "$py" <"$tmp/out" {orw}>&- {erw}>&- &
  TL_CAPTURE_READY_FD=$ready tl_capture "$err" "$tmp/err.ts" "$py" <"$tmp/err" >&2 {orw}>&- {erw}>&- &
  exec {dr}<"$tmp/done" {dw}>&-
  # Both copiers read (or one failed to start: then after 30 s).
  read -r -N 2 -t 30 -u "$ready" _r || true
  exec {ow}>"$tmp/out" {ew}>"$tmp/err"
  exec {ready}>&- {orw}>&- {erw}>&-
  # Signals go to the user's process (the local executor signals only us). The traps come before CMD
  # starts: a signal between its start and them would end us with its end unrecorded.
  upid='' _tl_forwarding=1
  tl_queue_signals
  "$@" <&0 >&"$ow" 2>&"$ew" {ow}>&- {ew}>&- {dr}<&- &
  upid=$!
  exec {ow}>&- {ew}>&- {tick}<>"$tmp/tick"
  tl_wait_pid "$upid" "$dr" "$tick" && rc=0 || rc=$?
  TL_CMD_TICKS=${TL_PROC_TICKS:-}
  # Then for the copiers to drain its pipes: a signal now must not end us before its last lines are
  # written (SIGKILL still ends everything). Their end is the end of file on dr, not `wait`: bash can
  # lose a child that ends while a trap runs, and then waits for it forever. A trap that cuts the
  # read short (bash in POSIX mode) makes it read again.
  trap '' TERM INT
  _tl_forwarding=0
  rc2=0
  while read -r -u "$dr" _r || rc2=$?; ((rc2 > 128)); do rc2=0; done
  trap '' USR1 USR2
  tl_take_signals
  exec {dr}<&- {tick}<&-
  rm -rf -- "$tmp"
  return "$rc"
}
