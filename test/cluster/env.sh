# shellcheck shell=bash
# Point Slurm clients (sbatch, srun, squeue, scontrol, sacct, scancel, sinfo)
# at the test cluster started by test/cluster/up:
#   source test/cluster/env.sh
# Sourced into the caller's shell, so it deliberately does not `set -euo
# pipefail` (that would change the caller's shell options) and defines no
# functions. Jobs inherit the submitter's environment, so these reach the ranks.

export SLURM_CONF
SLURM_CONF="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)/.state/etc/slurm.conf"

# Open MPI refuses to run as root without both of these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# Cluster facts for tests. Node names do not resolve (on purpose, like many
# real clusters): use addresses, e.g. MASTER_ADDR=$TL_CLUSTER_NODE1_ADDR.
export TL_CLUSTER_NODES='tlnode[1-3]' TL_CLUSTER_PARTITION=debug TL_CLUSTER_IFNAME=eth0
export TL_CLUSTER_NODE1_ADDR=10.77.77.11 TL_CLUSTER_NODE2_ADDR=10.77.77.12 TL_CLUSTER_NODE3_ADDR=10.77.77.13
