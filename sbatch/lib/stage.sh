# shellcheck shell=bash
# The node-local staging directory of this job on this node. One formula for the staging step
# and the ranks: $TRACK_LAUNCH_STAGE_ROOT (default $TMPDIR or /tmp), the job id, the host name.
tl_stage_dir() {
  printf '%s/track-launch-%s.%s\n' "${TRACK_LAUNCH_STAGE_ROOT:-${TMPDIR:-/tmp}}" \
    "${SLURM_JOB_ID:-${TRACK_LAUNCH_JOB_ID:-local}}" "$(hostname)"
}
