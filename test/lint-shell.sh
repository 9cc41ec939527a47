#!/usr/bin/env bash
# bash -n and shellcheck over every shell file of the repository: every tracked (or new, not
# ignored) file named *.sh or starting with a sh/bash shebang or a `# shellcheck shell=` line,
# wherever it lives (sbatch/, test/, .ci/, bench/, examples/, test/golden/).
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."

is_shell() { # FILE: *.sh, or a #!...sh / #!/usr/bin/env bash first line, or a shellcheck directive
  [[ -f $1 && ! -L $1 ]] || return 1
  [[ $1 == *.sh ]] && return 0
  head -c 128 -- "$1" | head -n 2 | grep -qE '^#!.*[/ ](ba|da)?sh( |$)|^# shellcheck shell='
}
mapfile -t files < <(git ls-files -z -co --exclude-standard | tr '\0' '\n' | sort -u |
  while IFS= read -r f; do is_shell "$f" && printf '%s\n' "$f"; done)
((${#files[@]})) || { echo "shell lint: no shell files found (run from a git checkout)" >&2; exit 1; }
for f in "${files[@]}"; do bash -n "$f"; done
shellcheck -x "${files[@]}"
echo "shell lint: ${#files[@]} files clean"
