#!/usr/bin/env bash
# The whole test suite (README's test command, `npm test`): type check, ESLint, prettier and shell lint, unit
# tests, then the integration and end-to-end tests against the real Slurm test cluster and a
# real MLflow 3 server, then the tracking suite's core cases against a real MLflow 2 server; this
# script starts and stops them (KEEP_SERVICES=1 leaves them up).
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."

# What a fresh Debian 12 machine lacks. As root, .ci/install-deps.sh installs it (as `npm run demo`
# does for its own needs); otherwise we print the one command to run.
find_missing() {
  missing=()
  local cmd
  for cmd in sbatch slurmctld slurmd slurmdbd sacct sacctmgr munged mariadbd mariadb-install-db shellcheck mpiexec chromium pdfinfo tmux; do
    command -v "$cmd" >/dev/null || missing+=("$cmd")
  done
  [[ -x .venv/bin/mlflow ]] || missing+=(".venv/bin/mlflow")
  [[ -x .venv-mlflow2/bin/mlflow ]] || missing+=(".venv-mlflow2/bin/mlflow")
  /usr/bin/python3 -c 'import torch' 2>/dev/null || missing+=("python3-torch")
  [[ -d node_modules ]] || missing+=("node_modules")
}
find_missing
if ((${#missing[@]})); then
  if [[ $EUID -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "npm test: missing on this machine: ${missing[*]}; installing them (bash .ci/install-deps.sh)" >&2
    bash .ci/install-deps.sh
    find_missing
    if ((${#missing[@]})); then
      echo "npm test: still missing after .ci/install-deps.sh: ${missing[*]}" >&2
      exit 1
    fi
  else
    echo "npm test: missing on this machine: ${missing[*]}" >&2
    echo "  Run this once, then npm test again (Debian 12: apt packages, MLflow in .venv, npm ci):" >&2
    echo "    sudo bash .ci/install-deps.sh" >&2
    exit 1
  fi
fi

# A focused or skipped test hides the rest: refuse them before running anything.
if focused=$(grep -rnE --include='*.ts' '\b(it|test|describe)\.(only|skip)\(|\b(fit|fdescribe|xit|xtest|xdescribe)\(' test); then
  echo "npm test: focused or skipped tests (remove .only/.skip/fit/xit before committing):" >&2
  printf '  %s\n' "$focused" >&2
  exit 1
fi

npm run -s build
npx tsc -p tsconfig.test.json
npx eslint .
npx prettier --check . >/dev/null || { echo "npm test: files not formatted as prettier wants: run npx prettier --check . to see them, npm run format to fix" >&2; exit 1; }
bash test/lint-shell.sh

artifacts=test/.artifacts
mkdir -p "$artifacts"
results=()
run_jest() { # run_jest NAME ARGS...: keeps going after a failure, counts from jest's JSON
  local name=$1
  shift
  local out="$artifacts/jest-$name.json" rc=0
  npx jest --json --outputFile="$out" "$@" || rc=$?
  results+=("$out")
  return "$rc"
}

status=0
run_jest unit --selectProjects unit --maxWorkers=100% || status=1

# shellcheck disable=SC2317 # called by the EXIT trap
stop_services() {
  if [[ ${KEEP_SERVICES:-0} == 1 ]]; then return 0; fi
  if [[ -x test/mlflow/down ]]; then
    bash test/mlflow/down || true
    bash test/mlflow/down test/mlflow/.state-mlflow2 || true
  fi
  bash test/cluster/down || true
}
trap stop_services EXIT
bash test/cluster/up
[[ -x test/mlflow/up ]] && bash test/mlflow/up
run_jest integration --selectProjects integration --runInBand || status=1

# The tracking suite's core cases again, against the newest MLflow 2.x (.ci/mlflow2-version): its own
# venv and its own server, started here and stopped with the others.
mlflow2=(MLFLOW_BIN="$PWD/.venv-mlflow2/bin/mlflow" MLFLOW_TEST_STATE="$PWD/test/mlflow/.state-mlflow2")
core=()
for f in parent-run names-oracle system-metrics python-client offline-sync delivery client cli seed-artifact; do
  core+=("test/integration/tracking/$f.test.ts")
done
rm -f "$artifacts/jest-integration-mlflow2.json"
if env "${mlflow2[@]}" bash test/mlflow/up >/dev/null; then
  env "${mlflow2[@]}" npx jest --json --outputFile="$artifacts/jest-integration-mlflow2.json" "${core[@]}" \
    --selectProjects integration --runInBand || status=1
else
  echo "npm test: the MLflow 2 server did not start: its core cases did not run" >&2
  status=1
fi
if [[ -f $artifacts/jest-integration-mlflow2.json ]]; then results+=("$artifacts/jest-integration-mlflow2.json"); fi

# shellcheck disable=SC2016 # JavaScript, not shell
node -e '
  let p = 0, f = 0, s = 0;
  for (const file of process.argv.slice(1)) {
    const r = JSON.parse(require("fs").readFileSync(file, "utf8"));
    p += r.numPassedTests; f += r.numFailedTests; s += r.numPendingTests + (r.numTodoTests || 0);
    f += r.testResults.filter((t) => t.status === "failed" && t.assertionResults.length === 0).length;
  }
  console.log(`jest: ${p} passed, ${f} failed, ${s} skipped`);
  if (s > 0) {
    console.log(`npm test: FAILED: ${s} test(s) skipped or todo; a skipped test is a failure here (run them, or delete them)`);
    process.exitCode = 1;
  }
' "${results[@]}" || status=1
exit "$status"
