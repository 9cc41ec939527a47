#!/usr/bin/env bash
# The main job (README, `npm run demo`): the polynomial DDP fit of seed 004 on 3 ranks on this
# machine with real torch.distributed (gloo), through the same bootstrap and file-based discovery
# as on Slurm, tracked offline (or to $MLFLOW_TRACKING_URI), ending with the rendered reports.
# Writes only under runs/ (ignored by git), plus node_modules/ and dist/ on a first run.
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."

PYTHON=${TRACK_LAUNCH_PYTHON:-/usr/bin/python3}

# First of all, what a fresh Debian 12 machine lacks: Node >= 20 for the CLI; a font so charts
# have text (only if none is found); PyTorch for the example. The charts' renderer comes prebuilt
# from the npm registry with `npm ci`: no system library, no compiler.
node_version=$(node --version 2>/dev/null) || node_version=none
node_major=${node_version#v}
node_major=${node_major%%.*}
if [[ ! $node_major =~ ^[0-9]+$ ]] || ((node_major < 20)); then
  echo "demo: track-launch needs Node.js 20 or newer; found: $node_version (Debian 12's nodejs is 18)." >&2
  echo "      Install Node 20+ (e.g. NodeSource's packages or nvm), put it first on PATH, and run npm run demo again." >&2
  exit 1
fi
apt_pkgs=()
font_found=false
for f in "${TRACK_LAUNCH_REPORT_FONT:-}" /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf; do
  [[ -n $f && -f $f ]] && font_found=true
done
$font_found || apt_pkgs+=(fonts-dejavu-core)
torch_ok=true
"$PYTHON" -c 'import torch, numpy' 2>/dev/null || torch_ok=false
$torch_ok || apt_pkgs+=(python3-torch python3-numpy)
missing=()
if command -v dpkg-query >/dev/null; then
  for p in "${apt_pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
fi
if ((${#missing[@]})); then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    echo "demo: installing ${missing[*]} (apt-get)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "demo: this machine lacks Debian packages the demo needs: ${missing[*]}" >&2
    echo "      Install them, then run npm run demo again:" >&2
    echo "        sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi
if ! "$PYTHON" -c 'import torch, numpy' 2>/dev/null; then
  echo "demo: $PYTHON cannot import torch and numpy. Install them (Debian: sudo apt-get install python3-torch python3-numpy;" >&2
  echo "      elsewhere: pip install torch numpy) and point TRACK_LAUNCH_PYTHON at that python." >&2
  exit 1
fi

if [[ ! -d node_modules ]]; then
  echo "demo: npm ci (installs the CLI's dependencies and builds it)"
  npm ci --no-audit --no-fund >/dev/null
fi
[[ -f dist/cli/main.js ]] || npm run -s build

run_dir=runs/polynomial-$(date -u +%Y%m%d-%H%M%S)
echo "demo: 3 ranks on this machine, run dir $run_dir; tracking: ${MLFLOW_TRACKING_URI:-offline (track-launch sync $run_dir uploads later)}"
rc=0
node bin/track-launch.js submit --executor local --nodes 3 --name polynomial --run-dir "$run_dir" --follow \
  -- "$PYTHON" examples/polynomial/train.py || rc=$?
if ((rc != 0)); then
  echo "demo: the job did not complete (exit $rc); its logs are in $run_dir/logs" >&2
  exit "$rc"
fi
# A report that failed to render is only a warning for submit (the job's outcome stands); the
# demo exists to show the reports, so without them it fails.
mapfile -t pdfs < <(find "$run_dir/reports" -maxdepth 1 -type f -name '*.pdf' 2>/dev/null | sort)
mapfile -t pngs < <(find "$run_dir/reports" -maxdepth 1 -type f -name '*.png' 2>/dev/null | sort)
if ((${#pdfs[@]} == 0 || ${#pngs[@]} == 0)); then
  echo "demo: the job completed but its report was not written (${#pdfs[@]} PDF, ${#pngs[@]} PNG files in $run_dir/reports);" >&2
  echo "      see the warning above, then render it again with: node bin/track-launch.js report $run_dir" >&2
  exit 1
fi
echo "demo: reports:"
printf '  %s\n' "${pdfs[@]}" "${pngs[@]}"
