"""The polynomial DDP fit of seed 004, runnable under track-launch.

Every rank fits the same small network to f(x) = (x^3 + (x-10)^4) / (x-20)^2 on x in [-3, 10] with
its own random batches; DDP averages the gradients. Each rank prints the seed's line
`epoch N, loss = X, rank r/size (host).`; rank 0 writes the evaluation data to
$TRACK_LAUNCH_RUN_DIR/eval/evaluation.json for the report's evaluation figure.

Initialisation is env:// (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, set by the track-launch
bootstrap); with --backend mpi, MPI provides rank and size. gloo on CPU, nccl on GPUs.
"""
import argparse
import json
import os
import signal
import socket

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP

X_MIN, X_MAX = -3.0, 10.0

# Tensors made in Python and passed to a collective live until the process ends. Otherwise torch 1.13
# (Debian's) can deadlock at exit: a gloo worker thread drops the last reference to such a tensor after
# the collective returned and waits for the GIL to free it, while the main thread, holding the GIL,
# joins that worker in ProcessGroupGloo's destructor (when the DDP model goes).
KEEP_ALIVE = []


def collective_buffer(*shape, dtype=torch.float32):
    """A tensor for collectives that outlives the process group (see KEEP_ALIVE)."""
    t = torch.zeros(*shape, dtype=dtype)
    KEEP_ALIVE.append(t)
    return t


def myfun(x):
    return (np.power(x, 3) + np.power(x - 10, 4)) / np.power(x - 20, 2)


class MinMax:
    """sklearn's MinMaxScaler(feature_range=(-1, 1)) without sklearn."""

    def __init__(self, data):
        self.lo, self.hi = float(np.min(data)), float(np.max(data))

    def transform(self, v):
        return (np.asarray(v) - self.lo) / (self.hi - self.lo) * 2.0 - 1.0

    def inverse(self, v):
        return (np.asarray(v) + 1.0) / 2.0 * (self.hi - self.lo) + self.lo


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(1, 20)
        self.fc2 = nn.Linear(20, 1, bias=False)
        self.tanh = nn.Tanh()

    def forward(self, x):
        return self.tanh(self.fc2(self.fc1(x)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=1000)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--log-every", type=int, default=100)
    ap.add_argument("--lr", type=float, default=0.001)
    ap.add_argument("--backend", default=os.environ.get("TRACK_LAUNCH_BACKEND", "gloo"))
    ap.add_argument("--fail-rank", type=int, default=-1, help="exit 3 on this rank at the middle epoch (fault tests)")
    args = ap.parse_args()

    if args.backend == "mpi":
        dist.init_process_group("mpi")
    else:
        dist.init_process_group(args.backend, init_method="env://")
    rank, size = dist.get_rank(), dist.get_world_size()
    device = torch.device("cpu")
    if args.backend == "nccl":
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(device)
    torch.manual_seed(1234 + rank)
    print(f"Running DDP on rank {rank}/{size}.", flush=True)

    x_train = np.linspace(X_MIN, X_MAX, num=args.batch_size).reshape(-1, 1)
    xs, ys = MinMax(x_train), MinMax(myfun(x_train))
    model = Model().to(device)
    ddp_model = DDP(model, device_ids=[device.index] if device.type == "cuda" else None)
    loss_fn = nn.MSELoss(reduction="mean")
    optimizer = optim.Adam(ddp_model.parameters(), lr=args.lr)
    host = socket.gethostname()
    checkpoint = os.path.join(os.environ.get("TRACK_LAUNCH_RUN_DIR", "."), "checkpoint.pt")
    start = resume(checkpoint, model, optimizer, rank)
    preempted = watch_preemption()

    for epoch in range(start, args.epochs):
        if preempted is not None and stop_requested(preempted):
            if rank == 0:
                torch.save({"epoch": epoch - 1, "model": model.state_dict(), "optimizer": optimizer.state_dict()}, checkpoint)
            where = "signal here" if preempted[0] else "signal on another rank"
            print(f"rank {rank}: preempted before epoch {epoch} ({where}); checkpoint saved, exiting", flush=True)
            dist.destroy_process_group()
            return
        if epoch == args.epochs // 2 and rank == args.fail_rank:
            print(f"rank {rank} fails on purpose at epoch {epoch}", flush=True)
            os._exit(3)
        x = np.random.default_rng(epoch * size + rank).uniform(X_MIN, X_MAX, (args.batch_size, 1))
        xb = torch.from_numpy(xs.transform(x)).float().to(device)
        yb = torch.from_numpy(ys.transform(myfun(x))).float().to(device)
        loss = loss_fn(ddp_model(xb), yb)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if epoch % args.log_every == 0 or epoch == args.epochs - 1:
            print(f"epoch {epoch}, loss = {loss.item()}, rank {rank}/{size} ({host}).", flush=True)

    if rank == 0:
        write_evaluation(ddp_model, xs, ys, x_train, args.epochs, device)
    dist.destroy_process_group()


def resume(path, model, optimizer, rank):
    """Continue after a requeue from the checkpoint rank 0 saved when it was preempted."""
    if not os.path.exists(path):
        return 0
    state = torch.load(path)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    print(f"rank {rank}: resuming after epoch {state['epoch']} from {path}", flush=True)
    return state["epoch"] + 1


def watch_preemption():
    """track-launch names the preemption signal in TRACK_LAUNCH_SIGNAL (submit --signal). Returns the
    signals received (the handler appends them) and the buffer the ranks agree through, or None."""
    name = os.environ.get("TRACK_LAUNCH_SIGNAL")
    if not name:
        return None
    got = []
    sig = getattr(signal, "SIG" + name)
    # The handler only records; the training loop acts at the next epoch boundary. Slurm signals
    # every process of the step and track-launch forwards it too, so it may come more than once.
    signal.signal(sig, lambda *_: got.append(sig))
    return got, collective_buffer(1)


def stop_requested(preempted):
    """All ranks stop at the same epoch: any rank that got the signal stops everyone."""
    got, agreed = preempted
    agreed.fill_(1.0 if got else 0.0)
    dist.all_reduce(agreed, op=dist.ReduceOp.MAX)
    if agreed.item() > 0:
        signal.signal(got[0] if got else signal.SIGUSR1, signal.SIG_IGN)
        return True
    return False


def write_evaluation(model, xs, ys, x_train, epochs, device):
    """eval/evaluation.json in the run directory (format: docs/run-dir.md)."""
    x_eval = np.linspace(X_MIN - 1.0, X_MAX + 1.0, num=200).reshape(-1, 1)
    with torch.no_grad():
        g = model(torch.from_numpy(xs.transform(x_eval)).float().to(device)).cpu().numpy()
    data = {
        "version": 1,
        "title": "Polynomial fit: f(x) = (x^3 + (x-10)^4) / (x-20)^2",
        "epochs": epochs,
        "x": x_eval.ravel().tolist(),
        "f": myfun(x_eval).ravel().tolist(),
        "g": ys.inverse(g).ravel().tolist(),
        "train_x": x_train.ravel().tolist(),
        "train_y": myfun(x_train).ravel().tolist(),
        "train_range": [X_MIN, X_MAX],
    }
    out_dir = os.path.join(os.environ.get("TRACK_LAUNCH_RUN_DIR", "."), "eval")
    os.makedirs(out_dir, exist_ok=True)
    tmp = os.path.join(out_dir, f".evaluation.json.{os.getpid()}")
    with open(tmp, "w") as fh:
        json.dump(data, fh)
    os.replace(tmp, os.path.join(out_dir, "evaluation.json"))
    print(f"evaluation data written to {os.path.join(out_dir, 'evaluation.json')}", flush=True)


if __name__ == "__main__":
    main()
