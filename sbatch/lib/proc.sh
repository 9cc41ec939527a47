# shellcheck shell=bash
# Process helpers shared by the rank's libraries (capture.sh, sampler.sh), which source this file.

# tl_running PID: true while process PID exists and is not a zombie (no process is started).
tl_running() {
  local s
  { IFS= read -r s <"/proc/$1/stat"; } 2>/dev/null || return 1
  s=${s##*) }
  [[ ${s:0:1} != Z ]]
}
