# shellcheck shell=bash
# The node-local staging directory of this job on this node. One formula for the staging step
# and the ranks: $TRACK_LAUNCH_STAGE_ROOT (default $TMPDIR or /tmp), the job id, the host name.
tl_stage_dir() {
  printf '%s/track-launch-%s.%s\n' "${TRACK_LAUNCH_STAGE_ROOT:-${TMPDIR:-/tmp}}" \
    "${SLURM_JOB_ID:-${TRACK_LAUNCH_JOB_ID:-local}}" "$(hostname)"
}

# What a node staged, in the run directory (node-local copies are gone once the job ends):
# logs/staged.<job id>.r<restart count>.<host>.txt, one `sha256  path` line per file staged.
# With no host, the common prefix of this start's records (for counting them).
tl_stage_record() {
  printf '%s/logs/staged.%s.r%s.%s\n' "${TRACK_LAUNCH_RUN_DIR:?}" \
    "${SLURM_JOB_ID:-${TRACK_LAUNCH_JOB_ID:-local}}" "${SLURM_RESTART_COUNT:-0}" "${1-$(hostname).txt}"
}
