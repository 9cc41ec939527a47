# shellcheck shell=bash source-path=SCRIPTDIR
# Per-node resource sampler: one JSON line per interval in <run-dir>/logs/node-<name>.resources.jsonl
# (format and whose processes count: docs/cluster.md). Pure bash and /proc; nvidia-smi where it exists.
#
#   tl_sampler_start RUN_DIR NODE_NAME INTERVAL_SECONDS   (0 or empty: no sampling)
#   tl_sampler_stop                                       (writes a last sample, then returns)

_tl_lib=${BASH_SOURCE[0]%/*}
[[ $_tl_lib == "${BASH_SOURCE[0]}" ]] && _tl_lib=.
# shellcheck source=proc.sh
. "$_tl_lib/proc.sh"

TL_SAMPLER_PID="" TL_SAMPLER_STOP=""

# tl_sampler_for_rank MODE LOCAL_RANK NODE_RANK: true for the one process per node that samples.
# The local executor runs every pretend node on one machine: only its node 0 samples.
tl_sampler_for_rank() {
  case "$1" in
    torchrun-worker) return 1 ;;
    local) (($2 == 0 && $3 == 0)) ;;
    *) (($2 == 0)) ;;
  esac
}

# Sets _tl_busy and _tl_total (jiffies over all CPUs) and _tl_ncpu from /proc/stat.
_tl_cpu_read() {
  local name user nice system idle iowait irq softirq steal rest
  _tl_ncpu=0
  while read -r name user nice system idle iowait irq softirq steal rest; do
    case "$name" in
      cpu)
        _tl_total=$((user + nice + system + idle + iowait + irq + softirq + steal))
        _tl_busy=$((_tl_total - idle - iowait))
        ;;
      cpu[0-9]*) ((++_tl_ncpu)) ;;
      *) break ;;
    esac
  done </proc/stat
}

# Sets _tl_mem_total_kb and _tl_mem_avail_kb from /proc/meminfo.
_tl_mem_read() {
  local key value _unit
  _tl_mem_total_kb=0 _tl_mem_avail_kb=0
  while read -r key value _unit; do
    case "$key" in
      MemTotal:) _tl_mem_total_kb=$value ;;
      MemAvailable:) _tl_mem_avail_kb=$value ;;
    esac
  done </proc/meminfo
}

# The job's pids on this node, one per line: not the sampler, nor the subshells it forks for this
# (forks keep the environment the sampler started with; the programs it runs do not have the keys).
_tl_job_pids() {
  local f pid sub=$BASHPID
  local -a files=(/proc/[0-9]*/environ)
  if [[ -n ${_tl_key2:-} ]]; then
    grep -lsFxz -e "$_tl_key1" -- "${files[@]}" | tr '\n' '\0' | xargs -0 -r grep -lsFxz -e "$_tl_key2" --
  else
    grep -lsFxz -e "$_tl_key1" -- "${files[@]}"
  fi | while IFS= read -r f; do
    pid=${f#/proc/}
    pid=${pid%/environ}
    [[ $pid == "$_tl_self" || $pid == "$sub" || $pid == "$BASHPID" ]] || printf '%s\n' "$pid"
  done
}

# Reads the job's processes: sets _tl_job_ticks (CPU jiffies the job used since the last read),
# _tl_job_rss_kb and _tl_job_nproc. The job's CPU so far is the sum, over its live processes, of
# each one's own time and that of the children it reaped: a process that ends moves its whole time
# into its parent's, so it stays counted once its parent (the rank's bootstrap, the rank's own
# process) is of the job. A process ended but not yet reaped (a zombie, whose environment is gone)
# counts until it is. The first read sets the baseline.
_tl_job_read() {
  local pid line rest key total=0
  local -a fields
  local -A seen=()
  _tl_job_rss_kb=0 _tl_job_nproc=0
  while IFS= read -r pid; do
    { IFS= read -r line <"/proc/$pid/stat"; } 2>/dev/null || continue
    rest=${line##*) } # the name may hold spaces and parentheses; the fields follow the last ')'
    read -ra fields <<<"$rest"
    ((${#fields[@]} > 21)) || continue
    seen["$pid:${fields[19]}"]=1 # pid and start time: a reused pid is a new process
    ((total += fields[11] + fields[12] + fields[13] + fields[14]))
    ((_tl_job_rss_kb += fields[21] * _tl_page_kb))
    ((++_tl_job_nproc))
  done < <(_tl_job_pids)
  for key in "${!_tl_prev[@]}"; do
    [[ -z ${seen[$key]:-} ]] || continue
    { IFS= read -r line <"/proc/${key%%:*}/stat"; } 2>/dev/null || continue
    read -ra fields <<<"${line##*) }"
    [[ ${fields[0]} == Z && ${fields[19]} == "${key#*:}" ]] || continue
    seen[$key]=1
    ((total += fields[11] + fields[12] + fields[13] + fields[14]))
  done
  _tl_job_ticks=0
  ((_tl_started && total > _tl_job_total)) && _tl_job_ticks=$((total - _tl_job_total))
  _tl_job_total=$total
  _tl_prev=()
  for key in "${!seen[@]}"; do _tl_prev[$key]=1; done
}

# A JSON number or null.
_tl_num() { if [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; then printf '%s' "$1"; else printf 'null'; fi; }

# tenths -> "12.3"
_tl_dec1() { printf '%d.%d' $(($1 / 10)) $(($1 % 10)); }

_tl_gpus_json() {
  local idx util used total sep="" out="["
  [[ -n $_tl_smi ]] || return 0
  while IFS=', ' read -r idx util used total _; do
    [[ $idx =~ ^[0-9]+$ ]] || continue
    out+="$sep{\"index\":$idx,\"util\":$(_tl_num "$util"),\"mem_used_mb\":$(_tl_num "$used"),\"mem_total_mb\":$(_tl_num "$total")}"
    sep=,
  done < <(${_tl_timeout[@]+"${_tl_timeout[@]}"} "$_tl_smi" --query-gpu=index,utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits 2>/dev/null)
  printf ',"gpus":%s]' "$out"
}

_tl_now_us() {
  local LC_ALL=C t=$EPOCHREALTIME
  printf '%s' "${t%.*}${t#*.}"
}

# One sample: everything since the previous one.
_tl_sample() {
  local now_us dt_us busy total job_ticks cpu10 jobcpu10 jobcs used_mb
  now_us=$(_tl_now_us)
  busy=$_tl_busy total=$_tl_total
  _tl_cpu_read
  _tl_mem_read
  _tl_job_read
  dt_us=$((now_us - _tl_last_us))
  ((dt_us > 0)) || dt_us=1
  cpu10=0
  ((_tl_total > total)) && cpu10=$((1000 * (_tl_busy - busy) / (_tl_total - total)))
  job_ticks=$_tl_job_ticks
  jobcs=$((job_ticks * 100 / _tl_clk))                            # centiseconds of CPU
  jobcpu10=$((job_ticks * 1000000000 / (_tl_clk * dt_us)))        # tenths of a percent of one CPU
  used_mb=$(((_tl_mem_total_kb - _tl_mem_avail_kb) / 1024))
  {
    printf '{"version":1,"t":%d.%06d,"dt":%d.%03d,"host":"%s",' $((now_us / 1000000)) $((now_us % 1000000)) $((dt_us / 1000000)) $((dt_us % 1000000 / 1000)) "$_tl_name"
    printf '"ncpu":%d,"cpu_util":%s,"mem_used_mb":%d,"mem_total_mb":%d,' "$_tl_ncpu" "$(_tl_dec1 "$cpu10")" "$used_mb" $((_tl_mem_total_kb / 1024))
    printf '"alloc_cpus":%s,"alloc_mem_mb":%s,' "$(_tl_num "${SLURM_CPUS_ON_NODE:-}")" "$(_tl_num "${SLURM_MEM_PER_NODE:-}")"
    printf '"job":{"nproc":%d,"cpu_s":%d.%02d,"cpu_util":%s,"rss_mb":%d}' "$_tl_job_nproc" $((jobcs / 100)) $((jobcs % 100)) "$(_tl_dec1 "$jobcpu10")" $((_tl_job_rss_kb / 1024))
    _tl_gpus_json
    printf '}\n'
  } >>"$_tl_out"
  _tl_last_us=$now_us
}

# The sampler sleeps in a timed read of the stop FIFO, and tl_sampler_stop ends it by writing a line
# there: no trap, since bash 5.2 can fail a command substitution made while a trapped signal comes.
# Slurm's preemption signal (USR1, USR2) must not end it; TERM and INT still do.
_tl_sampler_loop() {
  local _r rc=0
  set +euo pipefail # a failed read must not end the sampler (the bootstrap runs with -euo pipefail)
  _tl_self=$BASHPID
  trap '' USR1 USR2
  # Children of the sampler (grep, nvidia-smi) must not match as the job's processes.
  unset SLURM_JOB_ID SLURMD_NODENAME TRACK_LAUNCH_RUN_DIR
  _tl_clk=$(getconf CLK_TCK 2>/dev/null || echo 100)
  _tl_page_kb=$(($(getconf PAGESIZE 2>/dev/null || echo 4096) / 1024))
  _tl_smi=${TL_SAMPLER_NVIDIA_SMI:-$(command -v nvidia-smi || true)}
  _tl_timeout=()
  command -v timeout >/dev/null && _tl_timeout=(timeout 10) # nvidia-smi can hang on a sick GPU
  declare -gA _tl_prev=()
  _tl_started=0 _tl_job_total=0
  _tl_last_us=$(_tl_now_us)
  _tl_cpu_read
  _tl_job_read
  _tl_started=1
  local whole=${_tl_interval%.*} frac=000000 every due left
  [[ $_tl_interval == *.* ]] && frac=${_tl_interval#*.}000000
  every=$((10#$whole * 1000000 + 10#${frac:0:6}))
  due=$((_tl_last_us + every))
  while ((rc != 1)); do
    # Sleep until the next due time, so the time a sample takes does not stretch the interval. The
    # read ends early (status 0, or 1 if the FIFO is gone) when tl_sampler_stop asks for a last sample.
    left=$((due - $(_tl_now_us)))
    ((left > 10000)) || left=10000
    rc=0
    read -r -t "$((left / 1000000)).$(printf '%06d' $((left % 1000000)))" -u "$TL_SAMPLER_STOP" _r || rc=$?
    ((rc > 128)) || rc=1
    _tl_sample
    ((due += every))
    tl_running "$_tl_parent" || break # the rank is gone (killed; under torchrun, torchrun ended)
  done
}

tl_sampler_start() {
  local run_dir=$1 name=$2 interval=${3:-}
  [[ -n $interval && $interval != 0 ]] || return 0
  if ! [[ $interval =~ ^[0-9]+(\.[0-9]+)?$ ]] || [[ -z $name || $name == */* ]]; then
    echo "track-launch: sampler: interval '$interval' or node name '$name' not usable; no resource samples" >&2
    return 0
  fi
  mkdir -p -- "$run_dir/logs" || return 0
  _tl_out="$run_dir/logs/node-$name.resources.jsonl" _tl_name=$name _tl_interval=$interval _tl_parent=$BASHPID
  _tl_name=${_tl_name//[\"\\]/_}
  if [[ -n ${SLURM_JOB_ID:-} ]]; then
    _tl_key1="SLURM_JOB_ID=$SLURM_JOB_ID" _tl_key2=${SLURMD_NODENAME:+SLURMD_NODENAME=$SLURMD_NODENAME}
  else
    _tl_key1="TRACK_LAUNCH_RUN_DIR=${run_dir//$'\n'/}" _tl_key2=""
  fi
  local d
  d=$(mktemp -d "${TMPDIR:-/tmp}/track-launch-sampler.XXXXXX") || return 0
  if mkfifo -m 600 "$d/stop"; then exec {TL_SAMPLER_STOP}<>"$d/stop"; fi
  rm -rf -- "$d"
  [[ -n $TL_SAMPLER_STOP ]] || return 0
  _tl_sampler_loop </dev/null >/dev/null 2>&1 &
  TL_SAMPLER_PID=$!
}

tl_sampler_stop() {
  local i
  [[ -n $TL_SAMPLER_PID ]] || return 0
  echo stop >&"$TL_SAMPLER_STOP"
  for ((i = 0; i < 100; i++)); do # the last sample, but the rank is not held up more than 10 s
    kill -0 "$TL_SAMPLER_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$TL_SAMPLER_PID" 2>/dev/null || true
  wait "$TL_SAMPLER_PID" 2>/dev/null || true
  exec {TL_SAMPLER_STOP}>&-
  TL_SAMPLER_PID="" TL_SAMPLER_STOP=""
}
