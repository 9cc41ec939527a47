#!/usr/bin/env bash
# The ingestion benchmark's production-style MLflow: a private PostgreSQL 15 (its own data directory,
# 127.0.0.1 on a free port, a socket directory of its own) behind `mlflow server --workers N`.
#   bench/pg-server.sh up STATE_DIR [WORKERS]   prints the MLflow URI (last line of stdout)
#   bench/pg-server.sh down STATE_DIR           stops both by their pid files and deletes STATE_DIR
# PostgreSQL refuses to run as root: as root, it runs as the `postgres` user (Debian's package makes
# it), else as `nobody`; STATE_DIR is then handed to that user. The database takes connections only on
# loopback and from its socket directory (0700), with a random password (scram) over TCP.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:?usage: pg-server.sh up|down STATE_DIR [WORKERS]}
state=${2:?usage: pg-server.sh up|down STATE_DIR [WORKERS]}
workers=${3:-4}
pgbin=${TL_PG_BIN:-/usr/lib/postgresql/15/bin}
mlflow=${MLFLOW_BIN:-$here/../.venv/bin/mlflow}

as_pg=()
if (($(id -u) == 0)); then
  pguser=postgres
  getent passwd postgres >/dev/null || pguser=nobody
  as_pg=(runuser -u "$pguser" --)
fi

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Stops the process whose pid is in FILE (and, with "group", its process group), waiting up to 30 s.
stop_pidfile() {
  local file=$1 group=${2:-} pid
  [[ -f $file ]] || return 0
  pid=$(head -n 1 -- "$file")
  [[ $pid =~ ^[0-9]+$ ]] || return 0
  if [[ $group == group ]]; then kill -TERM -- "-$pid" 2>/dev/null || true; else kill -TERM "$pid" 2>/dev/null || true; fi
  for _ in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  if [[ $group == group ]]; then kill -KILL -- "-$pid" 2>/dev/null || true; else kill -KILL "$pid" 2>/dev/null || true; fi
}

down() {
  # mlflow first (its workers hold connections), then PostgreSQL's postmaster by its own pid file
  stop_pidfile "$state/mlflow.pid" group
  if [[ -f $state/pg/postmaster.pid ]]; then
    "${as_pg[@]}" "$pgbin/pg_ctl" -D "$state/pg" -m fast -w -t 30 stop >/dev/null 2>&1 ||
      stop_pidfile "$state/pg/postmaster.pid"
  fi
  rm -rf -- "$state"
}

up() {
  umask 077 # the password file, the logs
  mkdir -p -- "$state" && chmod 0700 -- "$state"
  state=$(cd "$state" && pwd)
  local pgport port pw uri
  pgport=$(free_port)
  pw=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
  printf '%s\n' "$pw" >"$state/pwfile"
  mkdir -m 0700 -- "$state/sock"
  if ((${#as_pg[@]})); then chown -R "$pguser" -- "$state"; fi
  # initdb: the bench's own cluster; superuser `mlflow` with the random password
  "${as_pg[@]}" "$pgbin/initdb" -D "$state/pg" -U mlflow --pwfile="$state/pwfile" -A scram-sha-256 \
    -E UTF8 --no-instructions >"$state/initdb.log" 2>&1 || {
    cat -- "$state/initdb.log" >&2
    exit 1
  }
  # loopback and a private socket directory only; durability as a production server has it (fsync on)
  printf "listen_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\nmax_connections = 100\n" \
    "$pgport" "${state//\'/\'\'}/sock" >>"$state/pg/postgresql.conf"
  "${as_pg[@]}" "$pgbin/pg_ctl" -D "$state/pg" -l "$state/pg/server.log" -w -t 60 start >/dev/null
  PGPASSWORD=$pw "$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U mlflow mlflow
  port=$(free_port)
  uri="http://127.0.0.1:$port"
  mkdir -p -- "$state/artifacts"
  # setsid: the server and its workers in one process group, stopped by `down` through that id
  setsid "$mlflow" server --host 127.0.0.1 --port "$port" --workers "$workers" \
    --backend-store-uri "postgresql+psycopg2://mlflow:$pw@127.0.0.1:$pgport/mlflow" \
    --artifacts-destination "$state/artifacts" --serve-artifacts \
    --allowed-hosts "127.0.0.1:$port,localhost:$port,127.0.0.1,localhost" \
    >>"$state/server.log" 2>&1 </dev/null &
  echo $! >"$state/mlflow.pid"
  for _ in $(seq 1 480); do
    if curl -fsS --max-time 2 "$uri/health" >/dev/null 2>&1; then
      echo "$uri" >"$state/uri"
      echo "$uri"
      return 0
    fi
    kill -0 "$(cat "$state/mlflow.pid")" 2>/dev/null || break
    sleep 0.5
  done
  echo "pg-server.sh: MLflow did not become healthy; last lines of $state/server.log:" >&2
  tail -n 30 -- "$state/server.log" >&2
  down
  exit 1
}

case "$cmd" in
  up) up ;;
  down) down ;;
  *) echo "usage: pg-server.sh up|down STATE_DIR [WORKERS]" >&2; exit 2 ;;
esac
