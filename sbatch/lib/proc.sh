# shellcheck shell=bash disable=SC2034 # TL_PROC_TICKS is read by capture.sh
# Process helpers shared by the rank's libraries (capture.sh, sampler.sh), which source this file.

# tl_running PID: true while process PID exists and is not a zombie (no process is started). Sets
# TL_PROC_TICKS to the CPU time PID used so far, in clock ticks: user and system, its own and that of
# the children it waited for; final once PID is a zombie (the read that returns false).
tl_running() {
  local s f
  { IFS= read -r s <"/proc/$1/stat"; } 2>/dev/null || return 1
  s=${s##*) } # the name may hold spaces and parentheses; the fields follow the last ')'
  read -ra f <<<"$s"
  TL_PROC_TICKS=$((f[11] + f[12] + f[13] + f[14]))
  [[ ${s:0:1} != Z ]]
}
