# shellcheck shell=bash disable=SC2034 # the TL_RDZV_* variables set here are read by rank-bootstrap.sh
# File-based master discovery on the shared filesystem. The master publishes
# "version=1\naddr=<IPv4>\nport=<port>\nhost=<name>\ncandidates=<IPv4>[,<IPv4>...]\n" (candidates:
# its addresses for the peers, best first, addr among them; a reader without them uses addr) with a
# temp file + rename (atomic on POSIX and NFS); the others open it (never stat: NFS caches negative
# lookups) with backoff and jitter.

# tl_publish FILE ADDR PORT [CANDIDATE...]
tl_publish() {
  local file=$1 dir tmp cands=""
  (($# > 3)) && cands=$(IFS=,; printf 'candidates=%s\n' "${*:4}")
  dir=$(dirname -- "$file")
  (umask 077 && mkdir -p -- "$dir") || return 1
  tl_check_private_dirs "$file" "${TL_WHO:-rank 0}" || return 1
  tmp="$dir/.$(basename -- "$file").$$.$RANDOM.tmp"
  (umask 077 && printf 'version=1\naddr=%s\nport=%s\nhost=%s\n%s' "$2" "$3" "$(hostname)" "${cands:+$cands$'\n'}" >"$tmp") || return 1
  mv -f -- "$tmp" "$file"
}

# tl_check_private_dirs FILE WHO: the rendezvous directory holding FILE and the run directory's
# bin/ and logs/ beside it must be directories of this job's user that nobody else can write
# into; otherwise another user could publish a master address, or swap the bootstrap or the logs.
# One that does not exist yet is left to whoever creates it (under umask 077).
tl_check_private_dirs() {
  local rdzv run d uid mode type why
  rdzv=$(dirname -- "$1")
  run=$(dirname -- "$rdzv")
  for d in "$rdzv" "$run/bin" "$run/logs"; do
    [[ -e $d || -L $d ]] || continue
    read -r uid mode type < <(stat -c '%u %a %F' -- "$d") || { tl_say "track-launch: $2: cannot stat $d"; return 1; }
    why=""
    if [[ $type != directory ]]; then
      why="it is a $type, not a directory"
    elif ((uid != EUID)); then
      why="it is owned by user id $uid, not by this job's user ($EUID)"
    elif ((8#$mode & 8#022)); then
      why="its mode $mode lets its group or others write into it"
    fi
    if [[ -n $why ]]; then
      tl_say "track-launch: $2: refusing $d: $why. The run directory and its bin/, logs/ and rendezvous/ must be private to the job's user (chmod go-w); submit again with a fresh --run-dir."
      return 1
    fi
  done
}

# Sets TL_RDZV_ADDR, TL_RDZV_PORT, TL_RDZV_HOST and TL_RDZV_CANDIDATES (an array: addr, then the
# other candidates; addr alone in files without the line) from FILE; fails on anything malformed.
tl_read_rendezvous() {
  local file=$1 fd line key value addr="" port="" host="" cands="" c
  local -a cands_in=() cands_out=()
  exec {fd}<"$file" || return 1
  while IFS= read -r line <&"$fd" || [[ -n $line ]]; do
    key=${line%%=*}
    value=${line#*=}
    case "$key" in
      addr) addr=$value ;;
      port) port=$value ;;
      host) host=$value ;;
      candidates) cands=$value ;;
    esac
  done
  exec {fd}<&-
  if ! tl_valid_ipv4 "$addr" || ! tl_valid_port "$port"; then
    echo "track-launch: rendezvous file $file holds addr='$addr' port='$port', not an IPv4 address and a port" >&2
    return 2
  fi
  cands_out=("$addr")
  if [[ -n $cands ]]; then
    IFS=, read -ra cands_in <<<"$cands"
    for c in "${cands_in[@]}"; do
      if ! tl_valid_ipv4 "$c" || ((${#cands_out[@]} >= 16)); then
        echo "track-launch: rendezvous file $file holds candidates='$cands', not up to 16 comma-separated IPv4 addresses" >&2
        return 2
      fi
      [[ $c == "$addr" ]] || cands_out+=("$c")
    done
  fi
  TL_RDZV_CANDIDATES=("${cands_out[@]}")
  TL_RDZV_HOST=$host TL_RDZV_ADDR=$addr TL_RDZV_PORT=$port
}

# tl_say MESSAGE: MESSAGE and a newline to stderr in one write(2). Bash's own echo and printf
# write a multi-line message line by line, and the first rank to fail ends the step (srun
# --kill-on-bad-exit): a rank ended between two writes leaves half its message in logs/job.out.
tl_say() {
  cat <<<"$1" >&2 2>/dev/null || printf '%s\n' "$1" >&2
}

# Arrival check: every rank marks that it started (an empty file per rank beside the rendezvous
# file); rank 0 waits for all of them before starting the user's command, so a rank that never
# starts ends the job after the timeout, named, instead of leaving the others in torch's init.
# tl_arrive FILE RANK
tl_arrive() {
  (umask 077 && mkdir -p -- "$1.ranks" && : >"$1.ranks/$2")
}

# tl_wait_arrivals FILE WORLD_SIZE TIMEOUT_SECONDS WHO
tl_wait_arrivals() {
  local dir=$1.ranks world=$2 timeout=$3 who=$4 start=$SECONDS delay=50 next=0 r missing
  while :; do
    # Opened, not stat'ed (NFS caches negative lookups); ranks below $next have arrived.
    while ((next < world)) && { : <"$dir/$next"; } 2>/dev/null; do ((next += 1)); done
    ((next >= world)) && return 0
    if ((SECONDS - start >= timeout)); then
      missing=()
      for ((r = next; r < world; r++)); do { : <"$dir/$r"; } 2>/dev/null || missing+=("$r"); done
      tl_say "track-launch: $who: ${#missing[@]} of $world ranks did not start within ${timeout} s: rank(s) ${missing[*]:0:20}${missing[20]:+ ...}.
track-launch: their nodes did not start them (see logs/job.out); ending the job instead of waiting in torch's init. Raise --rendezvous-timeout if nodes start slowly."
      return 1
    fi
    tl_backoff_sleep
  done
}

# Sleeps between half and all of the caller's local `delay` (ms), then doubles it up to 2 s:
# exponential backoff with jitter, so many waiters do not hit the file server in step.
tl_backoff_sleep() {
  local ms=$((delay / 2 + RANDOM % (delay / 2 + 1)))
  sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
  ((delay = delay * 2 > 2000 ? 2000 : delay * 2))
}

# The node that should have published, for the timeout message: rank 0 runs on the step's first node.
tl_master_node() {
  local list=${SLURM_STEP_NODELIST:-${SLURM_JOB_NODELIST:-}} first=""
  if [[ -n $list ]]; then first=$(scontrol show hostnames "$list" 2>/dev/null | head -n 1) || first=""; fi
  if [[ -z $list ]]; then first=$(hostname); fi
  printf '%s' "${first:-the first node of the job}"
}

# tl_wait_rendezvous FILE TIMEOUT_SECONDS WHO
tl_wait_rendezvous() {
  local file=$1 timeout=$2 who=$3 start=$SECONDS delay=50 rc master
  tl_check_private_dirs "$file" "$who" || return 1
  while :; do
    tl_read_rendezvous "$file" 2>/dev/null && return 0
    rc=$?
    if ((rc == 2)); then tl_read_rendezvous "$file"; return 1; fi
    if ((SECONDS - start >= timeout)); then
      master=$(tl_master_node) # looked up before the message starts, not between its lines
      tl_say "track-launch: $who: no master address after ${timeout} s: rendezvous file $file was not written.
track-launch: rank 0 (on $master) did not start there, or failed before publishing: see logs/job.out, and logs/rank-0.err if it exists. Raise --rendezvous-timeout if nodes start slowly."
      return 1
    fi
    tl_backoff_sleep
  done
}
