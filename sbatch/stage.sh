#!/usr/bin/env bash
# Node-local staging (submit --stage).
#   stage.sh copy SRC TASKS_PER_NODE [DATA]
#                                      copy SRC to this node's local directory; for a shard
#                                      directory (data shard output, with manifest.json) only
#                                      this node's ranks' files and the manifest, and with DATA
#                                      the series files their rank-<R>.data-files.txt lists name
#                                      (relative to DATA), each once, at the same relative path
#   stage.sh hold SRC TASKS_PER_NODE [DATA]  copy, then hold the copy until SIGUSR1 (the end of the job)
#                                      or SIGTERM/SIGINT (cancel, time limit); remove it then. One
#                                      Slurm step per node, beside the ranks, with this script as its
#                                      --task-epilog: on cancel srun SIGKILLs the step's tasks (no
#                                      trap runs) and no new step can start, but slurmstepd still
#                                      runs the task epilog on each node after its task has ended
#   stage.sh   (no arguments, as the task epilog: SLURM_SCRIPT_CONTEXT=epilog_task)  clean
#   stage.sh wait NODES PID            (batch script) wait until NODES nodes hold their copy;
#                                      fail if the staging step PID ends first
#   stage.sh clean                     remove this node's staging directory
# copy and hold record what they staged in the run directory (lib/stage.sh: tl_stage_record).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib/stage.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/lib/stage.sh"

copy() {
  local src=$1 per_node=$2 data=${3:-} dest name node r f record lists=()
  dest=$(tl_stage_dir)
  mkdir -p -- "$dest"
  chmod 700 -- "$dest"
  name=$(basename -- "$src")
  if [[ -d $src && -f $src/manifest.json ]]; then
    mkdir -p -- "$dest/$name"
    cp -- "$src/manifest.json" "$dest/$name/"
    node=${SLURM_NODEID:?}
    for ((r = node * per_node; r < (node + 1) * per_node; r++)); do
      for f in "$src/rank-$r."*; do [[ -e $f ]] && cp -- "$f" "$dest/$name/"; done
      if [[ -f $src/rank-$r.data-files.txt ]]; then lists+=("$src/rank-$r.data-files.txt"); fi
    done
    if [[ -n $data ]]; then copy_series "$data" "$dest/$name" "${lists[@]}"; fi
  else
    cp -a -- "$src" "$dest/"
  fi
  if [[ -n ${TRACK_LAUNCH_RUN_DIR:-} ]]; then
    record=$(tl_stage_record)
    mkdir -p -- "$(dirname -- "$record")"
    (cd -- "$dest" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum) >"$record.tmp.$$"
    mv -f -- "$record.tmp.$$" "$record"
  fi
  echo "track-launch: staged $src to $(hostname):$dest/$name"
}

# copy_series DATA DEST LIST...: the series files named in the lists (one path per line, relative to
# DATA), each once, to the same relative path under DEST.
copy_series() {
  local data=$1 to=$2
  shift 2
  (($# > 0)) || return 0
  (cd -- "$data" && cat -- "$@" | sort -u | tr '\n' '\0' | xargs -0 -r cp --parents -t "$to" --)
}

clean() {
  rm -rf -- "$(tl_stage_dir)"
}

if [[ $# -eq 0 && ${SLURM_SCRIPT_CONTEXT:-} == epilog_task ]]; then set -- clean; fi

case "${1:-}" in
  copy)
    copy "$2" "$3" "${4:-}"
    ;;
  hold)
    sleeper=''
    # shellcheck disable=SC2317 # run by the traps
    on_exit() {
      [[ -z $sleeper ]] || kill "$sleeper" 2>/dev/null || true
      clean
    }
    trap on_exit EXIT
    trap 'exit 0' USR1
    trap 'exit 143' TERM
    trap 'exit 130' INT
    copy "$2" "$3" "${4:-}"
    while :; do
      sleep 3600 &
      sleeper=$!
      wait "$sleeper" || true
    done
    ;;
  wait)
    nodes=$2 pid=$3
    prefix=$(tl_stage_record '')
    shopt -s nullglob
    for ((;;)); do
      records=("$prefix"*.txt)
      ((${#records[@]} >= nodes)) && exit 0
      if ! kill -0 "$pid" 2>/dev/null; then
        echo "track-launch: staging failed: ${#records[@]} of $nodes node(s) staged" >&2
        exit 1
      fi
      sleep 0.2
    done
    ;;
  clean)
    clean
    ;;
  *)
    echo "track-launch: stage.sh copy SRC TASKS_PER_NODE [DATA] | hold SRC TASKS_PER_NODE [DATA] | wait NODES PID | clean" >&2
    exit 2
    ;;
esac
