#!/usr/bin/env bash
# A 3-node batch job that runs sbatch/lib/sampler.sh on every node, outside track-launch submit.
# sbatch -N 3 --ntasks-per-node=1 sampler-job.sh RUN_DIR REPO INTERVAL SECONDS
set -euo pipefail
srun --kill-on-bad-exit=1 bash "$2/test/integration/cluster-facts/sampler-task.sh" "$@"
