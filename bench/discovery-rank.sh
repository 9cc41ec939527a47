#!/usr/bin/env bash
# One rank of a discovery-latency job (bench/discovery.ts), through the real rank bootstrap: it records
# $EPOCHREALTIME as the rank's first act, then execs sbatch/rank-bootstrap.sh (--launcher srun), which
# does what a job does: rank 0 looks up the routes to the other nodes, picks a port and publishes;
# every rank waits for the file, chooses its master candidate, checks in, and rank 0 waits for every
# rank's arrival before starting the command. The command (this script again, with --ran) records when
# it started: that is when the rank holds the master and may call init_process_group. Writes
#   RUN_DIR/bench/rank-R: rank start_time command_time host master_addr:master_port
# usage: discovery-rank.sh ROOT RUN_DIR        (as the step of `srun`, one task per node)
set -euo pipefail
if [[ ${1:-} == --ran ]]; then
  t_have=$EPOCHREALTIME
  printf '%s %s %s %s %s:%s\n' "$RANK" "$2" "$t_have" "$(hostname)" "$MASTER_ADDR" "$MASTER_PORT" \
    >"$TRACK_LAUNCH_RUN_DIR/bench/rank-$RANK"
  exit 0
fi
t_start=$EPOCHREALTIME
root=$1 run=$2
# as the batch script prepares it: a fresh rendezvous name per start of the job, private directories
rdzv="$run/rendezvous/${SLURM_JOB_ID:?}.r${SLURM_RESTART_COUNT:-0}.a0.addr"
(umask 077 && mkdir -p -- "$run/rendezvous" "$run/logs" "$run/bench")
export TRACK_LAUNCH_SAMPLE_INTERVAL=0 # no resource sampler: not part of discovery
exec bash "$root/sbatch/rank-bootstrap.sh" --launcher srun --run-dir "$run" --rdzv-file "$rdzv" \
  --timeout 60 -- bash "$root/bench/discovery-rank.sh" --ran "$t_start"
