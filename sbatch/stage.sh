#!/usr/bin/env bash
# Node-local staging (submit --stage):
#   stage.sh copy SRC TASKS_PER_NODE [DATA]  copy SRC to this node's local directory; of a shard
#       directory (with manifest.json) only the manifest, this node's ranks' files and, with DATA, the
#       series files their rank-<R>.data-files.txt name (relative to DATA), at the same relative path
#   stage.sh hold SRC TASKS_PER_NODE [DATA]  copy, hold the copy until SIGUSR1 (the job's end), SIGTERM
#       or SIGINT, then remove it. Also the step's --task-epilog: slurmstepd runs it on each node after
#       the task ends, also when srun SIGKILLs it (cancel, time limit) and no trap runs
#   stage.sh wait NODES PID   (batch script) until NODES nodes hold their copy; fails if step PID ends
#   stage.sh clean            (also with no arguments as the task epilog) remove this node's copy
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
    if [[ -n $data && ${#lists[@]} -gt 0 ]]; then
      (cd -- "$data" && cat -- "${lists[@]}" | sort -u | tr '\n' '\0' | xargs -0 -r cp --parents -t "$dest/$name" --)
    fi
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
