#!/usr/bin/env bash
# The whole test suite (README's test command, `npm test`): type check, ESLint, prettier and shell lint, unit
# tests, then the integration and end-to-end tests against the real Slurm test cluster and a
# real MLflow server, which this script starts and stops (KEEP_SERVICES=1 leaves them up).
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."

missing=()
for cmd in sbatch slurmctld slurmd munged shellcheck mpiexec chromium pdfinfo; do command -v "$cmd" >/dev/null || missing+=("$cmd"); done
[[ -x .venv/bin/mlflow ]] || missing+=(".venv/bin/mlflow")
/usr/bin/python3 -c 'import torch' 2>/dev/null || missing+=("python3-torch")
[[ -d node_modules ]] || missing+=("node_modules")
if ((${#missing[@]})); then
  echo "npm test: missing on this machine: ${missing[*]}" >&2
  echo "  Install them with: sudo bash .ci/install-deps.sh   (Debian 12: apt packages, MLflow in .venv, npm ci)" >&2
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
run_jest unit --selectProjects unit || status=1

# shellcheck disable=SC2317 # called by the EXIT trap
stop_services() {
  if [[ ${KEEP_SERVICES:-0} == 1 ]]; then return 0; fi
  if [[ -x test/mlflow/down ]]; then bash test/mlflow/down || true; fi
  bash test/cluster/down || true
}
trap stop_services EXIT
bash test/cluster/up
[[ -x test/mlflow/up ]] && bash test/mlflow/up
run_jest integration --selectProjects integration --runInBand || status=1

# shellcheck disable=SC2016 # JavaScript, not shell
node -e '
  let p = 0, f = 0, s = 0;
  for (const file of process.argv.slice(1)) {
    const r = JSON.parse(require("fs").readFileSync(file, "utf8"));
    p += r.numPassedTests; f += r.numFailedTests; s += r.numPendingTests + (r.numTodoTests || 0);
    f += r.testResults.filter((t) => t.status === "failed" && t.assertionResults.length === 0).length;
  }
  console.log(`jest: ${p} passed, ${f} failed, ${s} skipped`);
' "${results[@]}"
exit "$status"
