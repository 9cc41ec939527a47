#!/usr/bin/env bash
# The main job (README, `npm run demo`): the polynomial DDP fit of seed 004 on 3 ranks on this
# machine with real torch.distributed (gloo), through the same bootstrap and file-based discovery
# as on Slurm, tracked offline (or to $MLFLOW_TRACKING_URI), ending with the rendered reports.
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."

PYTHON=${TRACK_LAUNCH_PYTHON:-/usr/bin/python3}
# What a fresh Debian 12 machine lacks: PyTorch for the example, a C toolchain and Cairo for
# node-canvas (the charts), a font so charts have text.
apt_pkgs=(python3-torch python3-numpy build-essential libcairo2-dev libpango1.0-dev libjpeg-dev libgif-dev librsvg2-dev fonts-dejavu-core)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ! "$PYTHON" -c 'import torch, numpy' 2>/dev/null || ((${#missing[@]})); then
  if ((${#missing[@]})) && [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    echo "demo: installing ${missing[*]} (apt-get)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  elif ! "$PYTHON" -c 'import torch, numpy' 2>/dev/null; then
    echo "demo: $PYTHON cannot import torch and numpy. Install them (Debian: sudo apt-get install ${apt_pkgs[*]};" >&2
    echo "      elsewhere: pip install torch numpy) and point TRACK_LAUNCH_PYTHON at that python." >&2
    exit 1
  fi
fi
if [[ ! -d node_modules ]]; then
  echo "demo: npm ci (installs the CLI's dependencies and builds it)"
  npm ci --no-audit --no-fund >/dev/null
fi
[[ -f dist/launcher/cli/main.js ]] || npm run -s build

run_dir=runs/polynomial-$(date -u +%Y%m%d-%H%M%S)
echo "demo: 3 ranks on this machine, run dir $run_dir; tracking: ${MLFLOW_TRACKING_URI:-offline (track-launch sync $run_dir uploads later)}"
node bin/track-launch.js submit --executor local --nodes 3 --name polynomial --run-dir "$run_dir" --follow \
  -- "$PYTHON" examples/polynomial/train.py
echo "demo: reports:"
find "$run_dir/reports" -maxdepth 1 -type f \( -name '*.pdf' -o -name '*.png' \) -printf '  %p\n' | sort
