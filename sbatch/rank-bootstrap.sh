#!/usr/bin/env bash
# track-launch rank bootstrap: runs on every rank (once per node under torchrun) before the
# user's command. It finds the master by file-based discovery on the shared filesystem,
# exports the torch.distributed environment, and keeps per-rank logs with line times.
# Arguments: the options of the case below, as launcher/plan/bootstrap-args.ts writes them, then
# -- COMMAND [ARG...].
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

TL_SELF=$(readlink -f -- "${BASH_SOURCE[0]}")
TL_LIB=$(dirname -- "$TL_SELF")/lib
# shellcheck source=lib/net.sh
. "$TL_LIB/net.sh"
# shellcheck source=lib/rendezvous.sh
. "$TL_LIB/rendezvous.sh"
# shellcheck source=lib/ranks.sh
. "$TL_LIB/ranks.sh"
# shellcheck source=lib/capture.sh
. "$TL_LIB/capture.sh"
# shellcheck source=lib/stage.sh
. "$TL_LIB/stage.sh"
# shellcheck source=lib/sampler.sh
. "$TL_LIB/sampler.sh"

TL_MODE="" TL_RUN_DIR="" TL_RDZV_FILE="" TL_TIMEOUT=120 TL_IFACE_WANT="" TL_CIDR_WANT="" TL_BACKEND=gloo
TL_NPROC_PER_NODE=1 TL_CONTAINER="" TL_NV=0 TL_STAGE_NAME="" TL_SIGNAL="" TL_REQUEUE=0 TL_MLFLOW_ENV=0
TL_BINDS=()
while (($#)); do
  case "$1" in
    --launcher) TL_MODE=$2; shift 2 ;;
    --run-dir) TL_RUN_DIR=$2; shift 2 ;;
    --rdzv-file) TL_RDZV_FILE=$2; shift 2 ;;
    --timeout) TL_TIMEOUT=$2; shift 2 ;;
    --master-iface) TL_IFACE_WANT=$2; shift 2 ;;
    --master-cidr) TL_CIDR_WANT=$2; shift 2 ;;
    --backend) TL_BACKEND=$2; shift 2 ;;
    --nproc-per-node) TL_NPROC_PER_NODE=$2; shift 2 ;;
    --container) TL_CONTAINER=$2; shift 2 ;;
    --nv) TL_NV=1; shift ;;
    --bind) TL_BINDS+=("$2"); shift 2 ;;
    --stage) TL_STAGE_NAME=$2; shift 2 ;;
    --signal) TL_SIGNAL=$2; shift 2 ;;
    --requeue) TL_REQUEUE=1; shift ;;
    --mlflow-env) TL_MLFLOW_ENV=1; shift ;;
    --) shift; break ;;
    *) echo "track-launch: rank-bootstrap.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
(($#)) || { echo "track-launch: rank-bootstrap.sh: no command after --" >&2; exit 2; }
[[ -n $TL_MODE && -n $TL_RUN_DIR ]] || { echo "track-launch: rank-bootstrap.sh needs --launcher and --run-dir" >&2; exit 2; }
[[ $TL_MODE == torchrun ]] && TL_MODE=torchrun-agent

TL_HOST=$(hostname)
tl_derive_ranks "$TL_MODE"
TL_WHO="rank $TL_RANK on $TL_HOST"
[[ $TL_MODE == torchrun-agent ]] && TL_WHO="node $TL_NODE_RANK ($TL_HOST)"

# --- discovery ------------------------------------------------------------------------------
TL_IFACE="" TL_IP="" TL_CANDIDATES_JSON=""
if [[ $TL_MODE == torchrun-worker ]]; then
  : # torchrun's agent found the master and set MASTER_ADDR/MASTER_PORT and the socket interfaces
elif [[ $TL_MODE == mpiexec && $TL_BACKEND == mpi ]]; then
  : # MPI wires the ranks itself; no master address is needed
elif [[ $TL_MODE == local ]]; then
  if ((TL_RANK == 0)); then
    tl_publish "$TL_RDZV_FILE" 127.0.0.1 "$(tl_pick_port)"
  fi
  tl_wait_rendezvous "$TL_RDZV_FILE" "$TL_TIMEOUT" "$TL_WHO"
  MASTER_ADDR=$TL_RDZV_ADDR MASTER_PORT=$TL_RDZV_PORT TL_IFACE=lo TL_IP=127.0.0.1
else
  publisher=0
  [[ $TL_MODE == torchrun-agent ]] && ((TL_NODE_RANK == 0)) && publisher=1
  [[ $TL_MODE != torchrun-agent ]] && ((TL_RANK == 0)) && publisher=1
  if ((publisher)); then
    # The addresses the peers reach (routes to their NodeAddr), best first; --master-iface/-cidr win.
    mapfile -t candidates < <(tl_pick_candidates "$TL_IFACE_WANT" "$TL_CIDR_WANT")
    ((${#candidates[@]})) && [[ -n ${candidates[0]} ]] || exit 1
    tl_port=$(tl_pick_port) || exit 1
    tl_publish "$TL_RDZV_FILE" "${candidates[0]}" "$tl_port" "${candidates[@]}" || exit 1
  fi
  tl_wait_rendezvous "$TL_RDZV_FILE" "$TL_TIMEOUT" "$TL_WHO"
  # Each rank talks to the first candidate it reaches other than by its default route.
  MASTER_ADDR=$(tl_choose_master "$TL_WHO" "${TL_RDZV_HOST:-}" "${TL_RDZV_CANDIDATES[@]}") || exit 1
  MASTER_PORT=$TL_RDZV_PORT
  TL_CANDIDATES_JSON=$(printf ',"%s"' "${TL_RDZV_CANDIDATES[@]}") && TL_CANDIDATES_JSON="[${TL_CANDIDATES_JSON#,}]"
  read -r TL_IFACE TL_IP < <(tl_route_to "$MASTER_ADDR") || exit 1
  # One bootstrap per rank (not torchrun's agents, which check their nodes in themselves): rank 0
  # starts only once every rank has.
  if [[ $TL_MODE != torchrun-agent ]]; then
    tl_arrive "$TL_RDZV_FILE" "$TL_RANK" || exit 1
    if ((TL_RANK == 0)); then tl_wait_arrivals "$TL_RDZV_FILE" "$TL_WORLD_SIZE" "$TL_TIMEOUT" "$TL_WHO" || exit 1; fi
  fi
fi
if [[ -n $TL_IFACE ]]; then
  # Without these, gloo binds the address its hostname resolves to (often 127.0.1.1) and hangs.
  export GLOO_SOCKET_IFNAME=${GLOO_SOCKET_IFNAME:-$TL_IFACE}
  export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-$TL_IFACE}
fi
if [[ -n ${MASTER_ADDR:-} ]]; then export MASTER_ADDR MASTER_PORT; fi
export TRACK_LAUNCH_RUN_DIR=$TL_RUN_DIR TRACK_LAUNCH_BACKEND=$TL_BACKEND
# An array task (the batch script made TL_RUN_DIR its task-<N>/ from SLURM_ARRAY_TASK_ID): the task
# id to pick hyperparameters with, and with --param-grid the task's parameters (one JSON object).
if [[ -n ${SLURM_ARRAY_TASK_ID:-} ]]; then export TRACK_LAUNCH_ARRAY_TASK=$SLURM_ARRAY_TASK_ID; fi
if [[ -f $TL_RUN_DIR/params.json ]]; then export TRACK_LAUNCH_PARAMS_FILE=$TL_RUN_DIR/params.json; fi
# One resource sampler per node (the local rank 0, or the torchrun agent): logs/node-<host>.resources.jsonl
if ((${TRACK_LAUNCH_SAMPLE_INTERVAL:-10} > 0)) && tl_sampler_for_rank "$TL_MODE" "$TL_LOCAL_RANK" "$TL_NODE_RANK"; then
  tl_sampler_start "$TL_RUN_DIR" "$TL_HOST" "${TRACK_LAUNCH_SAMPLE_INTERVAL:-10}"
fi
# The signal Slurm sends before the time limit (--signal); the script may checkpoint on it.
[[ -n $TL_SIGNAL ]] && export TRACK_LAUNCH_SIGNAL=$TL_SIGNAL
if [[ -n $TL_STAGE_NAME ]]; then TRACK_LAUNCH_DATA_DIR=$(tl_stage_dir)/$TL_STAGE_NAME && export TRACK_LAUNCH_DATA_DIR; fi

# --- torchrun: one agent per node, the workers come back here as torchrun-worker -------------
if [[ $TL_MODE == torchrun-agent ]]; then
  worker=(--launcher torchrun-worker --run-dir "$TL_RUN_DIR" --rdzv-file "$TL_RDZV_FILE" --backend "$TL_BACKEND")
  [[ -n $TL_CONTAINER ]] && worker+=(--container "$TL_CONTAINER")
  ((TL_NV)) && worker+=(--nv)
  for b in "${TL_BINDS[@]}"; do worker+=(--bind "$b"); done
  [[ -n $TL_STAGE_NAME ]] && worker+=(--stage "$TL_STAGE_NAME")
  [[ -n $TL_SIGNAL ]] && worker+=(--signal "$TL_SIGNAL")
  ((TL_REQUEUE)) && worker+=(--requeue)
  ((TL_MLFLOW_ENV)) && worker+=(--mlflow-env)
  # Static rendezvous with the discovered IP: c10d rendezvous resolves hostnames, which fails here.
  # --redirects/--tee 1: Debian's torch 1.13 crashes on the defaults (Std.from_str returns None).
  # Underscore spellings: torch 1.x knows only these; 2.x accepts both.
  exec "${TRACK_LAUNCH_TORCHRUN:-torchrun}" --nnodes "$TL_NNODES" --nproc_per_node "$TL_NPROC_PER_NODE" \
    --node_rank "$TL_NODE_RANK" --master_addr "$MASTER_ADDR" --master_port "$MASTER_PORT" \
    --redirects 1 --tee 1 --log_dir "$TL_RUN_DIR/logs/torchrun/node-$TL_NODE_RANK" \
    --no_python bash "$TL_SELF" "${worker[@]}" -- "$@"
fi

export RANK=$TL_RANK WORLD_SIZE=$TL_WORLD_SIZE LOCAL_RANK=$TL_LOCAL_RANK
export LOCAL_WORLD_SIZE=$TL_LOCAL_WORLD_SIZE NODE_RANK=$TL_NODE_RANK
# submit --mlflow-env: the script's own MLflow calls go to this rank's run of the job, made at
# submit (tracking/mlflow-env.tsv: uri, experiment, then `rank R ID` lines, tab-separated).
# MLFLOW_EXPERIMENT_NAME goes: MLflow's client refuses one that names another experiment.
if ((TL_MLFLOW_ENV)); then
  tl_mlflow=$TL_RUN_DIR/tracking/mlflow-env.tsv tl_uri="" tl_exp="" tl_run=""
  if [[ -f $tl_mlflow && ! -L $tl_mlflow ]]; then
    { IFS= read -r tl_uri; IFS= read -r tl_exp; IFS= read -r tl_run; } < <(awk -F '\t' -v r="$TL_RANK" '
      $1 == "uri" { u = $2 } $1 == "experiment" { e = $2 } $1 == "rank" && $2 == r { id = $3; exit }
      END { print u; print e; print id }' "$tl_mlflow") || true
  fi
  tl_id='^[A-Za-z0-9_-]{1,64}$'
  if ! [[ $tl_uri =~ ^https?://[^[:space:]]+$ && $tl_exp =~ $tl_id && $tl_run =~ $tl_id ]]; then
    echo "track-launch: $TL_WHO: $tl_mlflow has no MLflow run for rank $TL_RANK (--mlflow-env): the runs are made at submit" >&2
    exit 1
  fi
  export MLFLOW_TRACKING_URI=$tl_uri MLFLOW_EXPERIMENT_ID=$tl_exp MLFLOW_RUN_ID=$tl_run
  unset MLFLOW_EXPERIMENT_NAME
fi
[[ -z $TL_IP && -n ${MASTER_ADDR:-} ]] && read -r TL_IFACE TL_IP < <(tl_route_to "$MASTER_ADDR")

# --- container ------------------------------------------------------------------------------
cmd=("$@")
if [[ -n $TL_CONTAINER ]]; then
  runtime=$(command -v apptainer || command -v singularity || true)
  [[ -n $runtime ]] || { echo "track-launch: $TL_WHO: neither apptainer nor singularity is on PATH (--container)" >&2; exit 127; }
  copts=(exec --bind "$TL_RUN_DIR")
  [[ -n $TL_STAGE_NAME ]] && copts+=(--bind "$(tl_stage_dir)")
  ((TL_NV)) && copts+=(--nv)
  for b in "${TL_BINDS[@]}"; do copts+=(--bind "$b"); done
  cmd=("$runtime" "${copts[@]}" "$TL_CONTAINER" "$@")
fi

# --- run, with per-rank logs and facts ------------------------------------------------------
logs=$TL_RUN_DIR/logs
mkdir -p -- "$logs"
tl_json_str() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "${s//[$'\001'-$'\037']/?}"
}
TL_HOST_JSON=$(tl_json_str "$TL_HOST") # for tl_on_signal, which makes no command substitution
# tl_write_facts [ENDED_AT EXIT_CODE CPU_TICKS]: logs/rank-R.json; CPU_TICKS (empty: unknown) is the
# CPU time the rank's command used, in clock ticks.
tl_write_facts() {
  local f="$logs/rank-$TL_RANK.json" tmp
  tmp="$f.$$.tmp"
  {
    printf '{"version":1,"rank":%d,"local_rank":%d,"node_rank":%d,' "$TL_RANK" "$TL_LOCAL_RANK" "$TL_NODE_RANK"
    printf '"world_size":%d,"local_world_size":%d,' "$TL_WORLD_SIZE" "$TL_LOCAL_WORLD_SIZE"
    printf '"host":%s,"ip":%s,"iface":%s,' "$TL_HOST_JSON" "$(tl_json_str "${TL_IP:-}")" "$(tl_json_str "${TL_IFACE:-}")"
    printf '"master_addr":%s,"master_port":%d,' "$(tl_json_str "${MASTER_ADDR:-}")" "${MASTER_PORT:-0}"
    [[ -n $TL_CANDIDATES_JSON ]] && printf '"master_candidates":%s,' "$TL_CANDIDATES_JSON"
    [[ -n ${MASTER_ADDR:-} ]] && printf '"rendezvous_file":%s,' "$(tl_json_str "$TL_RDZV_FILE")"
    printf '"job_id":%s,"restart":%d,' "$(tl_json_str "${SLURM_JOB_ID:-${TRACK_LAUNCH_JOB_ID:-}}")" "${SLURM_RESTART_COUNT:-0}"
    [[ -n ${SLURM_CLUSTER_NAME:-} ]] && printf '"cluster":%s,' "$(tl_json_str "$SLURM_CLUSTER_NAME")"
    [[ -n ${SLURM_JOB_PARTITION:-} ]] && printf '"partition":%s,' "$(tl_json_str "$SLURM_JOB_PARTITION")"
    printf '"launcher":%s,"started_at":%s' "$(tl_json_str "${TL_MODE%-worker}")" "$TL_STARTED"
    (($#)) && printf ',"ended_at":%s,"exit_code":%d' "$1" "$2"
    if [[ ${3:-} =~ ^[0-9]+$ ]]; then
      local cs=$(($3 * 100 / $(getconf CLK_TCK 2>/dev/null || echo 100)))
      printf ',"cpu_s":%d.%02d' $((cs / 100)) $((cs % 100))
    fi
    printf '}\n'
  } >"$tmp" && mv -f -- "$tmp" "$f"
}
tl_now() { local LC_ALL=C; printf '%s' "$EPOCHREALTIME"; }
TL_STARTED=$(tl_now)
# Preemption (--signal): every signal is recorded in logs/signals.jsonl as it arrives.
tl_requeues() { ((TL_REQUEUE && TL_RANK == 0)) && [[ -n ${SLURM_JOB_ID:-} ]]; }
# shellcheck disable=SC2317 # called by tl_take_signals in lib/capture.sh
tl_on_signal() {
  local LC_ALL=C requeue=false
  tl_requeues && requeue=true
  printf '{"t":%s,"rank":%d,"host":%s,"signal":"%s","restart":%d,"requeue":%s}\n' "$EPOCHREALTIME" "$TL_RANK" \
    "$TL_HOST_JSON" "$1" "${SLURM_RESTART_COUNT:-0}" "$requeue" >>"$logs/signals.jsonl"
}
# tl_settled_ranks: how many ranks of this start recorded a signal or ended (facts with an exit code).
tl_settled_ranks() {
  local tag="\"restart\":${SLURM_RESTART_COUNT:-0},"
  {
    grep -hF -- "$tag" "$logs/signals.jsonl" 2>/dev/null || true
    grep -hF -- "$tag" "$logs"/rank-*.json 2>/dev/null | grep -F '"exit_code":' || true
  } | grep -o '"rank":[0-9]*' | sort -u | wc -l
}
# tl_signal_of_start: "RANK SIGNAL" of the first signal recorded in this start, or nothing.
tl_signal_of_start() {
  grep -F "\"restart\":${SLURM_RESTART_COUNT:-0}," -- "$logs/signals.jsonl" 2>/dev/null |
    sed -n '1s/.*"rank":\([0-9]*\),.*"signal":"\([A-Z0-9]*\)".*/\1 \2/p' || true
}
# tl_wait_settled SECONDS: until every rank of this start recorded a signal or ended. Slurm signals
# the nodes one by one: a rank may stop with the others (they agree to stop) before its own signal.
tl_wait_settled() {
  local deadline=$((SECONDS + $1)) n=0
  while ((SECONDS < deadline)); do
    n=$(tl_settled_ranks) || n=0
    ((n >= TL_WORLD_SIZE)) && return 0
    sleep 0.2
  done
  # Said only when a rank was signalled: otherwise the others are just still running.
  [[ -z $(tl_signal_of_start) ]] ||
    echo "track-launch: after $1 s only $n of $TL_WORLD_SIZE ranks had recorded a signal or ended" >&2
}
tl_write_facts
err_start=$(stat -c %s -- "$logs/rank-$TL_RANK.err" 2>/dev/null || echo 0)
rc=0
tl_run_captured "$logs/rank-$TL_RANK.out" "$logs/rank-$TL_RANK.err" "${cmd[@]}" || rc=$?
# From here TERM, INT, USR1 and USR2 are ignored (tl_run_captured leaves them so): the rank's end
# is recorded even when a second signal comes (the local script's stop of all ranks after the first).
tl_sampler_stop
tl_write_facts "$(tl_now)" "$rc" "$TL_CMD_TICKS"
# Between our port check and torch's bind another process may take the port. torch then fails
# with "...:<port> (errno: 98 - Address already in use)": tell the batch script, which starts
# the ranks again with a new port, instead of failing the job.
if ((rc != 0 && TL_RANK == 0)) && [[ -n ${MASTER_PORT:-} && $TL_MODE != local ]] &&
  tail -c +$((err_start + 1)) -- "$logs/rank-$TL_RANK.err" | grep -q ":$MASTER_PORT.*Address already in use"; then
  echo "track-launch: port $MASTER_PORT on $TL_HOST was taken before torch could bind it" >&2
  : >"$TL_RDZV_FILE.port-clash"
fi
if tl_requeues; then
  # Preempted with --requeue: rank 0 asks Slurm to requeue once its process has exited (and could
  # checkpoint) when any rank of this start recorded the signal: rank 0's node may be the last one
  # Slurm signals. The job starts again with SLURM_RESTART_COUNT + 1 and a fresh rendezvous. The
  # requeue ends every rank's step, so first each rank records its signal or ends; a rank 0 that
  # failed unsignalled does not wait for ranks that may hang without it.
  if [[ -n $TL_SIGNALLED ]] || ((rc == 0)); then tl_wait_settled 60; fi
  tl_sig_rank="" tl_sig=""
  read -r tl_sig_rank tl_sig < <(tl_signal_of_start) || true
  if [[ -n $tl_sig ]]; then
    echo "track-launch: rank $tl_sig_rank got SIG$tl_sig: requeueing job $SLURM_JOB_ID" >&2
    scontrol requeue "$SLURM_JOB_ID" || echo "track-launch: scontrol requeue $SLURM_JOB_ID failed" >&2
  fi
fi
if ((rc != 0)); then
  echo "track-launch: $TL_WHO exited with status $rc" >&2
fi
exit "$rc"
