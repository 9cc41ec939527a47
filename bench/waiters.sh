#!/usr/bin/env bash
# N simulated ranks waiting on one rendezvous file (bench/discovery.ts): each is a bash process that
# calls tl_wait_rendezvous from sbatch/lib/rendezvous.sh; the file is published DELAY seconds after the
# waiters were started. Each waiter appends "index pid start have" to OUT_DIR/have.txt; the publish
# time goes to OUT_DIR/published.txt. A waiter gives up after TIMEOUT seconds (starting 1,024 of them
# under strace can take minutes).  usage: waiters.sh LIB_DIR OUT_DIR N DELAY_SECONDS TIMEOUT_SECONDS
set -euo pipefail
lib=$1 out=$2 n=$3 pub_delay=$4 timeout=$5
file=$out/rdzv/bench.r0.a0.addr
mkdir -p "$out/rdzv"
rm -f "$file"
for ((waiter = 0; waiter < n; waiter++)); do
  (
    t0=$EPOCHREALTIME
    # shellcheck source=sbatch/lib/rendezvous.sh
    . "$lib/rendezvous.sh"
    # shellcheck source=sbatch/lib/net.sh
    . "$lib/net.sh"
    tl_wait_rendezvous "$file" "$timeout" "waiter $waiter" && echo "$waiter $BASHPID $t0 $EPOCHREALTIME" >>"$out/have.txt"
  ) &
done
started=$EPOCHREALTIME
sleep "$pub_delay"
# shellcheck source=sbatch/lib/rendezvous.sh
. "$lib/rendezvous.sh"
tl_publish "$file" 10.77.77.11 29500
echo "$started $EPOCHREALTIME" >"$out/published.txt"
wait
