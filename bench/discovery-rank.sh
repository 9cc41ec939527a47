#!/usr/bin/env bash
# One rank of a discovery-latency job (bench/discovery.ts): the bootstrap's discovery steps, timed.
# Rank 0 picks its address and a free port and publishes them; every rank (rank 0 too) then waits
# for the rendezvous file exactly as sbatch/rank-bootstrap.sh does. Writes one line per rank:
#   rank start_time have_master_time host addr:port publish_time (rank 0; "-" for the others)
# usage: discovery-rank.sh LIB_DIR RDZV_FILE OUT_DIR
set -euo pipefail
t_start=$EPOCHREALTIME
lib=$1 file=$2 out=$3
# shellcheck source=sbatch/lib/net.sh
. "$lib/net.sh"
# shellcheck source=sbatch/lib/rendezvous.sh
. "$lib/rendezvous.sh"
rank=${SLURM_PROCID:?}
t_pub=-
if ((rank == 0)); then
  read -r iface ip < <(tl_pick_address "" "") || exit 1
  tl_publish "$file" "$ip" "$(tl_pick_port)"
  t_pub=$EPOCHREALTIME
  : "$iface"
fi
tl_wait_rendezvous "$file" 60 "rank $rank on $(hostname)"
t_have=$EPOCHREALTIME
printf '%s %s %s %s %s:%s %s\n' "$rank" "$t_start" "$t_have" "$(hostname)" "$TL_RDZV_ADDR" "$TL_RDZV_PORT" "$t_pub" >"$out/${SLURM_JOB_ID}.rank$rank"
