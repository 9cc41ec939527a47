# shellcheck shell=bash
# shellcheck disable=SC2034 # variables are used by the scripts that source this file
# Shared names, paths and helpers for test/cluster/{up,down,smoke}.
# Sourced (not executed); the caller sets `set -euo pipefail`.

TLC_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
TLC_STATE_REAL=$TLC_DIR/.state

# Unix socket paths are limited to 107 bytes (munge socket, slurmstepd sockets
# under the spool dir) and slurm.conf cannot hold paths with spaces. If the
# clone location is long or odd, daemons see the state dir through a short
# symlink instead.
tlc_state_path() {
  if [[ ${#TLC_STATE_REAL} -le 56 && $TLC_STATE_REAL =~ ^[A-Za-z0-9_./-]+$ ]]; then
    printf '%s\n' "$TLC_STATE_REAL"
  else
    printf '/run/tl-cluster-%s\n' "$(printf '%s' "$TLC_STATE_REAL" | cksum | cut -d' ' -f1)"
  fi
}
TLC_STATE=$(tlc_state_path)

TLC_CONF=$TLC_STATE_REAL/etc/slurm.conf
TLC_BRIDGE=tlbr0
TLC_SUBNET=10.77.77
TLC_CTL_IP=$TLC_SUBNET.1
TLC_CTL_NAME=tlctl
TLC_CTL_PORT=16817 # not 6817: never collide with a system Slurm
TLC_SLURMD_PORT=16818
TLC_NODES=(1 2 3)
TLC_MUNGE_SOCKET=$TLC_STATE/munge/munge.socket
# Accounting: slurmdbd on the bridge address (clients and slurmctld reach it there), over a
# private MariaDB on loopback with its own port, socket and data directory (never the system's).
TLC_DBD_PORT=16819       # not 6819
TLC_DB_PORT=16306        # not 3306
TLC_DB_DIR=$TLC_STATE_REAL/mariadb
TLC_DB_SOCKET=$TLC_STATE/run/mariadb.sock
TLC_DB_NAME=slurm_acct_db
TLC_DB_USER=tlslurm
TLC_DBD_CONF=$TLC_STATE_REAL/etc/slurmdbd.conf

tlc_node_name() { printf 'tlnode%s\n' "$1"; }
tlc_node_ns() { printf 'tl-node%s\n' "$1"; }
tlc_node_ip() { printf '%s.1%s\n' "$TLC_SUBNET" "$1"; }
tlc_node_veth() { printf 'tlveth%s\n' "$1"; }

tlc_log() { printf 'tl-cluster: %s\n' "$*" >&2; }
tlc_die() {
  printf 'tl-cluster: error: %s\n' "$*" >&2
  exit 1
}

# True if pid runs. A zombie counts as dead: orphaned daemons are reaped by
# pid 1 some time after they exit, and until then /proc/<pid> still exists.
tlc_running() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat%% *} != [ZX] ]]
}

# Pid from a pid file if that process is alive and is the expected program
# (comm check guards against a recycled pid). Prints nothing otherwise.
tlc_live_pid() {
  local file=$1 comm=$2 pid
  [[ -r $file ]] || return 0
  pid=$(tr -dc '0-9' <"$file")
  [[ -n $pid ]] || return 0
  [[ -r /proc/$pid/comm && $(</proc/"$pid"/comm) == "$comm" ]] || return 0
  tlc_running "$pid" || return 0
  printf '%s\n' "$pid"
}

tlc_munged_pidfile() { printf '%s\n' "$TLC_STATE_REAL/run/munged.pid"; }
tlc_ctld_pidfile() { printf '%s\n' "$TLC_STATE_REAL/run/slurmctld.pid"; }
tlc_mariadb_pidfile() { printf '%s\n' "$TLC_STATE_REAL/run/mariadb.pid"; }
tlc_dbd_pidfile() { printf '%s\n' "$TLC_STATE_REAL/run/slurmdbd.pid"; }
tlc_slurmd_pidfile() { printf '%s/run/slurmd-%s.pid\n' "$TLC_STATE_REAL" "$(tlc_node_name "$1")"; }

# Client commands must use our config, whatever the caller's environment says.
tlc_slurm() { SLURM_CONF=$TLC_CONF "$@"; }

# Last lines of every log, for error messages.
tlc_log_tails() {
  local f
  for f in "$TLC_STATE_REAL"/log/*.log; do
    [[ -e $f ]] || continue
    printf '==> %s (last 15 lines) <==\n' "$f" >&2
    tail -n 15 -- "$f" >&2 || true
  done
}
