# shellcheck shell=bash disable=SC2034 # the TL_* variables set here are read by rank-bootstrap.sh
# Derive the torch.distributed variables from what the process launcher set, so that
# init_process_group(init_method="env://") works unmodified.
# Sets TL_RANK TL_WORLD_SIZE TL_LOCAL_RANK TL_LOCAL_WORLD_SIZE TL_NODE_RANK TL_NNODES.

# Slurm's compressed per-node task counts, e.g. "2(x3),1": print the count for node index $2.
tl_tasks_on_node() {
  local spec=$1 want=$2 idx=0 part count reps
  local IFS=,
  for part in $spec; do
    if [[ $part =~ ^([0-9]+)\(x([0-9]+)\)$ ]]; then
      count=${BASH_REMATCH[1]} reps=${BASH_REMATCH[2]}
    else
      count=$part reps=1
    fi
    if ((want < idx + reps)); then echo "$count"; return 0; fi
    ((idx += reps))
  done
  return 1
}

tl_need() {
  local name
  for name in "$@"; do
    [[ -n ${!name:-} ]] || {
      echo "track-launch: $TL_MODE launcher: \$$name is not set on $(hostname); is this running under the launcher it was planned for?" >&2
      return 1
    }
  done
}

tl_derive_ranks() {
  case "$1" in
    srun)
      tl_need SLURM_PROCID SLURM_NTASKS SLURM_LOCALID SLURM_NODEID || return 1
      TL_RANK=$SLURM_PROCID TL_WORLD_SIZE=$SLURM_NTASKS TL_LOCAL_RANK=$SLURM_LOCALID TL_NODE_RANK=$SLURM_NODEID
      TL_NNODES=${SLURM_STEP_NUM_NODES:-${SLURM_NNODES:-1}}
      TL_LOCAL_WORLD_SIZE=$(tl_tasks_on_node "${SLURM_STEP_TASKS_PER_NODE:-${SLURM_TASKS_PER_NODE:-1}}" "$SLURM_NODEID") ||
        TL_LOCAL_WORLD_SIZE=${SLURM_NTASKS_PER_NODE:-1}
      ;;
    mpiexec)
      if [[ -n ${OMPI_COMM_WORLD_RANK:-} ]]; then
        TL_RANK=$OMPI_COMM_WORLD_RANK TL_WORLD_SIZE=$OMPI_COMM_WORLD_SIZE
        TL_LOCAL_RANK=$OMPI_COMM_WORLD_LOCAL_RANK TL_LOCAL_WORLD_SIZE=$OMPI_COMM_WORLD_LOCAL_SIZE
      elif [[ -n ${PMI_RANK:-} ]]; then # MPICH, Intel MPI
        TL_RANK=$PMI_RANK TL_WORLD_SIZE=$PMI_SIZE
        TL_LOCAL_RANK=${MPI_LOCALRANKID:-0} TL_LOCAL_WORLD_SIZE=${MPI_LOCALNRANKS:-1}
      else
        echo "track-launch: mpiexec launcher: neither OMPI_COMM_WORLD_RANK nor PMI_RANK is set on $(hostname)" >&2
        return 1
      fi
      # Ranks are placed node by node (--map-by ppr:N:node), so the node index follows from the rank.
      TL_NODE_RANK=$((TL_RANK / TL_LOCAL_WORLD_SIZE))
      TL_NNODES=$(((TL_WORLD_SIZE + TL_LOCAL_WORLD_SIZE - 1) / TL_LOCAL_WORLD_SIZE))
      ;;
    torchrun-agent) # one per node; torchrun starts the node's workers
      tl_need SLURM_NODEID || return 1
      TL_NODE_RANK=$SLURM_NODEID TL_NNODES=${SLURM_STEP_NUM_NODES:-${SLURM_NNODES:-1}}
      TL_LOCAL_WORLD_SIZE=$TL_NPROC_PER_NODE TL_LOCAL_RANK=0
      TL_WORLD_SIZE=$((TL_NNODES * TL_NPROC_PER_NODE)) TL_RANK=$((TL_NODE_RANK * TL_NPROC_PER_NODE))
      ;;
    torchrun-worker) # started by torchrun, which set the variables already
      tl_need RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE || return 1
      TL_RANK=$RANK TL_WORLD_SIZE=$WORLD_SIZE TL_LOCAL_RANK=$LOCAL_RANK TL_LOCAL_WORLD_SIZE=$LOCAL_WORLD_SIZE
      TL_NODE_RANK=${GROUP_RANK:-$((RANK / LOCAL_WORLD_SIZE))} TL_NNODES=$((WORLD_SIZE / LOCAL_WORLD_SIZE))
      ;;
    local) # the local executor sets these for each rank process
      tl_need TRACK_LAUNCH_RANK TRACK_LAUNCH_WORLD_SIZE || return 1
      # --nodes N on one machine: ranks are grouped into N pretend nodes of TASKS_PER_NODE each.
      local per=${TRACK_LAUNCH_TASKS_PER_NODE:-$TRACK_LAUNCH_WORLD_SIZE}
      TL_RANK=$TRACK_LAUNCH_RANK TL_WORLD_SIZE=$TRACK_LAUNCH_WORLD_SIZE
      TL_LOCAL_RANK=$((TL_RANK % per)) TL_LOCAL_WORLD_SIZE=$per
      TL_NODE_RANK=$((TL_RANK / per)) TL_NNODES=$(((TL_WORLD_SIZE + per - 1) / per))
      ;;
    *)
      echo "track-launch: unknown launcher mode '$1'" >&2
      return 1
      ;;
  esac
}
