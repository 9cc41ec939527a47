#!/usr/bin/env bash
# Install what a fresh Debian 12 machine lacks for track-launch's tests: Debian packages,
# MLflow 3 in ./.venv and MLflow 2 in ./.venv-mlflow2, and the npm dependencies (npm ci also
# builds dist/). Idempotent and quick when everything is present. Needs root for apt-get.
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."

# Node.js 20 or newer (package.json engines) comes first: Debian 12's own nodejs is 18, and
# nothing below (npm ci, the build, the tests) works with it.
node_version=$(node --version 2>/dev/null) || node_version=none
node_major=${node_version#v}
node_major=${node_major%%.*}
if [[ ! $node_major =~ ^[0-9]+$ ]] || ((node_major < 20)); then
  echo "install-deps: track-launch needs Node.js 20 or newer; found: $node_version" >&2
  echo "  Debian 12's own nodejs package is 18: install Node 20+ from NodeSource (https://github.com/nodesource/distributions)" >&2
  echo "  or with nvm, make sure \`node --version\` prints v20 or later, then run .ci/install-deps.sh again." >&2
  exit 1
fi

mapfile -t pkgs < <(grep -v '^\s*#' .ci/apt-packages.txt | grep -v '^\s*$')
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

MLFLOW_VERSION=$(cat .ci/mlflow-version)
# [auth]: the basic-auth server of the credential tests (mlflow server --app-name basic-auth).
if ! .venv/bin/mlflow --version 2>/dev/null | grep -q "$MLFLOW_VERSION" || ! .venv/bin/python -c 'import flask_wtf' 2>/dev/null; then
  echo "install-deps: MLflow $MLFLOW_VERSION (with auth) into .venv"
  [[ -x .venv/bin/pip ]] || python3 -m venv .venv
  .venv/bin/pip install -q "mlflow[auth]==$MLFLOW_VERSION"
fi
# psycopg2: the PostgreSQL driver of the benchmark's production-style server (bench/pg-server.sh).
if ! .venv/bin/python -c 'import psycopg2' 2>/dev/null; then
  echo "install-deps: psycopg2-binary into .venv"
  .venv/bin/pip install -q "psycopg2-binary==2.9.13"
fi

# The newest MLflow 2.x in its own venv: npm test runs the tracking suite's core cases against it too.
# It imports a pool class SQLAlchemy 2.1 removed: SQLAlchemy stays at 2.0.
MLFLOW2_VERSION=$(cat .ci/mlflow2-version)
if ! .venv-mlflow2/bin/mlflow --version 2>/dev/null | grep -q "$MLFLOW2_VERSION" ||
  ! .venv-mlflow2/bin/python -c 'from sqlalchemy.pool import FallbackAsyncAdaptedQueuePool' 2>/dev/null; then
  echo "install-deps: MLflow $MLFLOW2_VERSION into .venv-mlflow2"
  [[ -x .venv-mlflow2/bin/pip ]] || python3 -m venv .venv-mlflow2
  .venv-mlflow2/bin/pip install -q "mlflow==$MLFLOW2_VERSION" "sqlalchemy==2.0.59"
fi

if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "install-deps: npm ci"
  npm ci --no-audit --no-fund
fi
npm run -s build
