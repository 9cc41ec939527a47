"""The GPU check's training: a few DDP steps on this rank's device, under the rank bootstrap.

With backend nccl each rank takes the GPU numbered LOCAL_RANK (torch.cuda.set_device) and checks that
torch.cuda.current_device() is that GPU; with gloo (the CPU rehearsal) it runs on the CPU. It all-reduces
a known tensor and checks the sum, then trains a small model for SECONDS (its argument, default 15) so
the node's sampler sees the GPU busy. Metrics go to stdout in the jsonl protocol (docs/tracking.md); what the
rank found goes to stderr as one line `gpu-check: {json}` for test/gpu/check.ts.
"""
import json
import os
import sys
import time

import torch
import torch.distributed as dist


def facts_line(facts):
    print("gpu-check: " + json.dumps(facts, sort_keys=True), file=sys.stderr, flush=True)


def nccl_version():
    """NCCL's version as 2.21.5 (older torch gives one number, 2708 for 2.7.8)."""
    v = torch.cuda.nccl.version()
    return ".".join(map(str, v)) if isinstance(v, tuple) else str(v)


def main():
    backend = os.environ["TRACK_LAUNCH_BACKEND"]
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local_rank = int(os.environ["LOCAL_RANK"])
    facts = {
        "rank": rank,
        "world_size": world,
        "local_rank": local_rank,
        "backend": backend,
        "torch": torch.__version__,
        "cuda_available": torch.cuda.is_available(),
        "nccl_socket_ifname": os.environ.get("NCCL_SOCKET_IFNAME"),
        "gloo_socket_ifname": os.environ.get("GLOO_SOCKET_IFNAME"),
        "master_addr": os.environ.get("MASTER_ADDR"),
    }
    if backend == "nccl":
        # NCCL's own log of its initialisation, per rank, in the run directory (read by the check).
        os.environ.setdefault("NCCL_DEBUG", "INFO")
        os.environ.setdefault(
            "NCCL_DEBUG_FILE", os.path.join(os.environ["TRACK_LAUNCH_RUN_DIR"], "logs", f"nccl-rank-{rank}.log")
        )
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
        facts.update(
            current_device=torch.cuda.current_device(),
            device_name=torch.cuda.get_device_name(local_rank),
            device_memory_mib=torch.cuda.get_device_properties(local_rank).total_memory // (1024 * 1024),
            device_count=torch.cuda.device_count(),
            nccl_version=nccl_version(),
            cuda_version=torch.version.cuda,
        )
    else:
        device = torch.device("cpu")
    facts_line(facts)  # before init: a rank that hangs there has still said where it was

    dist.init_process_group(backend, init_method="env://")
    # Each rank contributes rank+1: the sum is world*(world+1)/2 on every rank.
    t = torch.full((4,), float(rank + 1), device=device)
    dist.all_reduce(t)
    expected = world * (world + 1) / 2
    facts.update(allreduce=t.tolist(), allreduce_expected=expected, allreduce_ok=bool((t == expected).all()))
    facts_line(facts)

    torch.manual_seed(1234 + rank)
    model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 1)).to(device)
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank] if backend == "nccl" else None)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 15.0
    batch = 4096 if backend == "nccl" else 64
    end, step = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        x = torch.randn(batch, 512, device=device)
        loss = ((ddp(x) - x.sum(dim=1, keepdim=True) / 32) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step <= 10 or step % 10 == 0:
            print(json.dumps({"track_launch": 1, "step": step, "metrics": {"loss": loss.item()}}), flush=True)
    if backend == "nccl":
        torch.cuda.synchronize()
        facts["max_memory_allocated_mib"] = torch.cuda.max_memory_allocated() // (1024 * 1024)
    facts.update(steps=step, done=True)
    facts_line(facts)
    dist.barrier()
    dist.destroy_process_group()
    return t  # alive until the process ends: see collective_buffer in examples/polynomial/train.py


if __name__ == "__main__":
    KEEP = main()
