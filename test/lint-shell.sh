#!/usr/bin/env bash
# bash -n and shellcheck over every shell file of the project (sbatch/, test/, .ci/).
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.sh' sbatch test/cluster .ci examples | sort -u |
  while read -r f; do [[ -f $f ]] && head -c 64 "$f" | grep -qE '^#!.*(ba)?sh|shellcheck shell=' && echo "$f"; done)
for f in "${files[@]}"; do bash -n "$f"; done
shellcheck -x "${files[@]}"
echo "shell lint: ${#files[@]} files clean"
