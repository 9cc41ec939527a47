#!/usr/bin/env bash
# Node-local staging (submit --stage): run once per node by the batch script.
#   stage.sh copy SRC TASKS_PER_NODE   copy SRC to this node's local directory; for a shard
#                                      directory (data shard output, with manifest.json) only
#                                      this node's ranks' files and the manifest
#   stage.sh clean                     remove this node's staging directory
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=lib/stage.sh
. "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/lib/stage.sh"

case "${1:-}" in
  copy)
    src=$2 per_node=$3
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
      done
    else
      cp -a -- "$src" "$dest/"
    fi
    echo "track-launch: staged $src to $(hostname):$dest/$name"
    ;;
  clean)
    rm -rf -- "$(tl_stage_dir)"
    ;;
  *)
    echo "track-launch: stage.sh copy SRC TASKS_PER_NODE | clean" >&2
    exit 2
    ;;
esac
