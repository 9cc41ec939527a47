#!/usr/bin/env bash
# The GPU check's part on the GPU machine, which has no Node.js (test/gpu/README.md): print the
# prerequisites, run the packed job's rendered script (job.local.sh, without the local supervisor)
# with this machine's python3, and put its whole run directory into one tarball in OUT_DIR.
#   bash test/gpu/on-gpu.sh OUT_DIR [PACK_DIR]      (PACK_DIR: test/gpu/.pack, made by `here.js pack`)
# The CPU rehearsal (test/integration/gpu/) runs this same script with gloo and a stand-in nvidia-smi.
set -uo pipefail
umask 077 # the run directory's modes (docs/run-dir.md): ingest here refuses group- or world-writable files

out=${1:?usage: on-gpu.sh OUT_DIR [PACK_DIR]}
pack=${2:-test/gpu/.pack}
limit=${GPU_CHECK_LIMIT:-240} # seconds the job may run; the machine allows one short call
if [[ ! -f $pack/run/job.local.sh || ! -f $pack/pack.env ]]; then
  echo "on-gpu.sh: no packed job in $pack: run 'node dist/test/gpu/here.js pack' first, and carry $pack" >&2
  exit 2
fi
mkdir -p -- "$out" "$pack/there" && out=$(cd -- "$out" && pwd) && cd -- "$pack" || exit 2
(umask 077 && mkdir -p -- run/logs)
backend="" ranks=""
while IFS='=' read -r key value; do
  case "$key" in
    backend) backend=$value ;;
    ranks) ranks=$value ;;
  esac
done <"pack.env"
[[ $backend =~ ^(nccl|gloo)$ && $ranks =~ ^[1-9][0-9]*$ ]] || { echo "on-gpu.sh: $pack/pack.env is not valid" >&2; exit 2; }

section() { printf '\n== %s\n' "$1"; }
# The prerequisites, first: what the machine has, whatever happens after.
{
  section "date"
  date -u +%FT%TZ
  section "host"
  hostname
  uname -r
  section "python3"
  command -v python3 && python3 --version
  section "torch, CUDA, NCCL"
  python3 - <<'EOF' | tee there/torch.json
import json
import torch
facts = {"torch": torch.__version__, "cuda": torch.version.cuda, "cuda_available": torch.cuda.is_available(),
         "device_count": torch.cuda.device_count() if torch.cuda.is_available() else 0,
         "nccl_available": torch.distributed.is_nccl_available(), "gloo_available": torch.distributed.is_gloo_available()}
if torch.cuda.is_available():
    v = torch.cuda.nccl.version()
    facts["nccl"] = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
    facts["devices"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
print(json.dumps(facts))
EOF
  section "nvidia-smi"
  nvidia-smi
  section "nvidia-smi --query-gpu"
  nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader,nounits
  section "ip"
  ip -brief address
  ip route
  section "/proc/net/tcp"
  head -n 4 /proc/net/tcp
  wc -l /proc/net/tcp /proc/net/tcp6
} >"there/prereqs.txt" 2>&1
cat "there/prereqs.txt"
# The GPUs as a file for the check here (empty where nvidia-smi is missing).
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader,nounits \
  >"there/nvidia-smi.csv" 2>/dev/null

# Every GPU of the machine is used when the pack was rendered for them all (here.js pack --gpus N).
if [[ $backend == nccl ]]; then
  gpus=$(grep -c . "there/nvidia-smi.csv" 2>/dev/null || true)
  gpus=${gpus:-0}
  if ((gpus < ranks)); then
    echo "on-gpu.sh: the pack is for $ranks GPU(s), nvidia-smi lists $gpus: render it with here.js pack --gpus $gpus" >&2
  elif ((gpus > ranks)); then
    echo "on-gpu.sh: note: this machine has $gpus GPUs and the pack uses $ranks: here.js pack --gpus $gpus uses them all" >&2
  fi
fi

# The job, as the local supervisor would run it (from the pack, which holds ddp-check.py; its output
# to logs/job.out), but without it.
section "job: $ranks rank(s), backend $backend"
started=$EPOCHSECONDS
TRACK_LAUNCH_JOB_ID=gpu-check timeout --kill-after=15 "$limit" bash run/job.local.sh >>run/logs/job.out 2>&1
rc=$?
echo "$rc" >"there/rc"
echo "job.local.sh exited $rc after $((EPOCHSECONDS - started)) s"
tail -n 40 "run/logs/job.out"
for f in run/logs/rank-*.json; do cat "$f"; done
for f in run/logs/rank-*.err; do grep '^gpu-check: ' "$f" | tail -n 1; done

tar -czf "$out/gpu-check.tgz" run there || exit 2
cp -- "there/prereqs.txt" "$out/prereqs.txt"
echo "wrote $out/gpu-check.tgz ($(stat -c %s "$out/gpu-check.tgz") bytes)"
exit "$rc"
