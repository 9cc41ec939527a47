#!/usr/bin/env bash
# One task of sampler-job.sh: the node's first task samples while every task works for a while
# (a CPU-bound python3 holding ~200 MiB), the way rank-bootstrap.sh runs the user's command.
# sampler-task.sh RUN_DIR REPO INTERVAL SECONDS
set -euo pipefail
run_dir=$1 repo=$2 interval=$3 seconds=$4
# shellcheck source=../../../sbatch/lib/sampler.sh source-path=SCRIPTDIR
. "$repo/sbatch/lib/sampler.sh"
if tl_sampler_for_rank srun "$SLURM_LOCALID" "$SLURM_NODEID"; then
  tl_sampler_start "$run_dir" "$(hostname)" "$interval"
fi
rc=0
python3 -c '
import sys, time
hold = bytearray(200 * 2**20)
for i in range(0, len(hold), 4096):
    hold[i] = 1  # touch every page: resident
end = time.time() + float(sys.argv[1])
n = 0
while time.time() < end:
    n += 1
' "$seconds" || rc=$?
tl_sampler_stop
env | grep -E '^SLURM(D_NODENAME|_CPUS_ON_NODE|_MEM_PER_NODE|_JOB_ID)=' | sort >"$run_dir/env-$(hostname).txt"
exit "$rc"
