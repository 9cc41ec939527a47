"""A minimal LUNA-style nodule classifier, trained with DDP on per-rank shards (track-launch data shard).

Each rank reads only its own shard: rank-$RANK.train.csv and rank-$RANK.val.csv (LUNA16 candidates.csv
columns) from $TRACK_LAUNCH_DATA_DIR (set by `track-launch submit --stage DIR`), else from --shards DIR.

CT crops: when the shards were made with --data-dir, the manifest lists each rank's series files; the rank
reads each of its series once (mhd.py: the MetaImage header parsed, the .raw mapped with numpy.memmap, or
SimpleITK when installed), converts each candidate's world coordinates to voxels with the header's offset,
spacing and direction, and crops 16^3 voxels around it as the book's getRawCandidate does (crops.py). The
series are found in the staged copy ($TRACK_LAUNCH_DATA_DIR, same relative layout) when it holds them,
else in --data-dir or the manifest's data.dir. With --prepare the crops go to a per-node cache before the
first epoch (--cache-dir, default crop-cache/ in the node-local copy) and the epochs read them from there,
memory-mapped; without it they are kept in memory. Either way no epoch reads a CT file. Shards without
series files get synthetic crops made from each candidate's row (a sphere for a nodule, a tube or a speck).

Training follows torch's DistributedSampler contract with shards instead of strided indices: every rank
runs the same number of samples per epoch (agreed with an all_reduce MAX; a shorter shard wraps around,
as DistributedSampler pads), reshuffled every epoch from the seed, the epoch and the rank, balanced 1:1
between positives and negatives like the LUNA book's --balanced. Validation runs over each rank's whole
validation shard; the counts are summed over the ranks, so every rank prints the same val lines.

Each rank prints the LUNA book's logMetrics lines, which the tracking plugin parses (format `luna`):
    E1 trn      0.6931 loss,  50.0% correct, 0.5000 precision, 0.5000 recall, 0.5000 f1 score
    E1 val_pos  0.6012 loss,  75.0% correct (3 of 4)
lines saying what it read and, at the end, every data file it opened (a Python audit hook sees each
open(); the CT reader adds the files SimpleITK opens; files of the Python installation and /proc, /sys,
/dev are left out), all of them and those opened during the epochs, e.g.
    rank 1/3 opened ["/tmp/track-launch-132.tlnode2/shards/manifest.json", ...]
    rank 1/3 opened during the epochs []
It writes no files but the crop cache.
"""
import argparse
import csv
import hashlib
import json
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from crops import CtCrops, synthetic_crop

CROP = 16

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

OPENED = set()
_NOT_DATA = tuple(
    os.path.join(os.path.realpath(p), "")
    for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, "/proc", "/sys", "/dev"}
)


def note_opens(event, args):
    """Audit hook: remembers every file opened that is not part of Python, its libraries or the kernel."""
    if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
        p = os.path.realpath(os.fsdecode(args[0]))
        if not p.startswith(_NOT_DATA):
            OPENED.add(p)


def shard_dir(args):
    d = os.environ.get("TRACK_LAUNCH_DATA_DIR") or args.shards
    if not d:
        raise SystemExit("train.py: no shards: set TRACK_LAUNCH_DATA_DIR (submit --stage DIR) or give --shards DIR")
    return d


def check_manifest(d, rank, size):
    """The shard directory's manifest.json (version 1) must be for this world size; this rank's files must match it."""
    with open(os.path.join(d, "manifest.json")) as fh:
        m = json.load(fh)
    if m.get("version") != 1:
        raise SystemExit(f"train.py: {d}/manifest.json has version {m.get('version')!r}; this script reads version 1")
    if m["world_size"] != size:
        raise SystemExit(f"train.py: {d} was sharded for {m['world_size']} ranks, this job has {size}; shard it again with --world-size {size}")
    entry = m["ranks"][rank]
    for split in ("train", "val"):
        with open(os.path.join(d, entry[split]["file"]), "rb") as fh:
            if hashlib.sha256(fh.read()).hexdigest() != entry[split]["sha256"]:
                raise SystemExit(f"train.py: {d}/{entry[split]['file']} does not match manifest.json (SHA-256)")
    return m, entry


def read_shard(path):
    """Per candidate: its series, its centre (x, y, z mm) and its label."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    uids = [r["seriesuid"].strip() for r in rows]
    centers = [(float(r["coordX"]), float(r["coordY"]), float(r["coordZ"])) for r in rows]
    labels = np.array([int(float(r["class"])) for r in rows], dtype=np.int64)
    return uids, centers, labels


def ct_source(args, d, m, entry):
    """Where this rank's CT series are: the staged copy ($TRACK_LAUNCH_DATA_DIR, same relative layout) when it
    holds them, else --data-dir or the manifest's data.dir. None when the shards name no CT files."""
    if entry["train"].get("data_files") is None:
        return None
    files = entry["train"]["data_files"] + entry["val"]["data_files"]
    staged = os.environ.get("TRACK_LAUNCH_DATA_DIR")
    if staged and all(os.path.exists(os.path.join(staged, f)) for f in files):
        root = staged
    else:
        root = args.data_dir or m["data"]["dir"]
    mhd_of = {os.path.basename(f)[: -len(".mhd")]: f for f in files if f.endswith(".mhd")}
    cache = args.cache_dir or (os.path.join(staged, "crop-cache") if staged and root == staged else None)
    if args.prepare and not cache:
        raise SystemExit("train.py: --prepare needs --cache-dir DIR (node-local) when the data is not staged")
    note = lambda p: OPENED.add(os.path.realpath(p))  # noqa: E731
    return CtCrops(root, mhd_of, CROP, cache if args.prepare else None, note)


def make_inputs(source, uids, centers, labels):
    if not len(labels):
        return None
    if source is None:
        keys = [f"{u},{float(x)},{float(y)},{float(z)}" for u, (x, y, z) in zip(uids, centers)]
        return torch.from_numpy(np.stack([synthetic_crop(k, y, CROP) for k, y in zip(keys, labels)])[:, None])
    return torch.from_numpy(source.crops(uids, centers))


class LunaModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv3d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool3d(2),
            nn.Conv3d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool3d(2),
            nn.Flatten(), nn.Linear(16 * (CROP // 4) ** 3, 2),
        )

    def forward(self, x):
        return self.net(x)


class ShardSampler:
    """DistributedSampler's contract for a rank that holds only its shard (see the module docstring)."""

    def __init__(self, labels, num_samples, seed, rank, balanced=True):
        self.labels, self.num_samples, self.seed, self.rank, self.epoch = labels, num_samples, seed, rank, 0
        self.pos = np.flatnonzero(labels == 1)
        self.neg = np.flatnonzero(labels == 0)
        self.balanced = balanced and len(self.pos) > 0 and len(self.neg) > 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def indices(self):
        rng = np.random.default_rng([self.seed, self.epoch, self.rank])
        if not self.balanced:
            return np.resize(rng.permutation(len(self.labels)), self.num_samples)
        half = (self.num_samples + 1) // 2
        neg = np.resize(rng.permutation(self.neg), half)
        pos = np.resize(rng.permutation(self.pos), half)
        return np.stack([neg, pos], 1).reshape(-1)[: self.num_samples]


def metrics_lines(epoch, mode, c, with_split):
    """The LUNA book's logMetrics lines from counts c = [loss_sum, n, tp, fp, tn, fn, loss_pos, loss_neg];
    none for an empty set (no validation series anywhere), no _neg/_pos line for an empty class."""
    loss, n, tp, fp, tn, fn, loss_pos, loss_neg = c
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    lines = [
        f"E{epoch} {mode:8} {loss / max(n, 1):.4f} loss, {100.0 * (tp + tn) / max(n, 1):-5.1f}% correct, "
        f"{precision:.4f} precision, {recall:.4f} recall, {f1:.4f} f1 score"
    ]
    neg, pos = tn + fp, tp + fn
    if with_split and neg:
        lines.append(f"E{epoch} {mode + '_neg':8} {loss_neg / neg:.4f} loss, {100.0 * tn / neg:-5.1f}% correct ({int(tn)} of {int(neg)})")
    if with_split and pos:
        lines.append(f"E{epoch} {mode + '_pos':8} {loss_pos / pos:.4f} loss, {100.0 * tp / pos:-5.1f}% correct ({int(tp)} of {int(pos)})")
    return lines if n else []


def count(logits, y, loss_each):
    pred = logits.argmax(1)
    pos, neg = y == 1, y == 0
    return torch.tensor([
        float(loss_each.sum()), float(len(y)),
        float((pred[pos] == 1).sum()), float((pred[neg] == 1).sum()),
        float((pred[neg] == 0).sum()), float((pred[pos] == 0).sum()),
        float(loss_each[pos].sum()), float(loss_each[neg].sum()),
    ], dtype=torch.float64)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shards", help="shard directory (when $TRACK_LAUNCH_DATA_DIR is not set)")
    ap.add_argument("--data-dir", help="CT series directory when not staged (default: the manifest's data.dir)")
    ap.add_argument("--prepare", action="store_true",
                    help="fill a per-node cache of crops before the first epoch; epochs read the cache (memory-mapped)")
    ap.add_argument("--cache-dir", help="the crop cache (default: crop-cache in the node-local staged copy)")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--max-samples", type=int, default=512, help="samples per rank per epoch, at most")
    ap.add_argument("--lr", type=float, default=0.001)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--backend", default=os.environ.get("TRACK_LAUNCH_BACKEND", "gloo"))
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
    else:
        torch.set_num_threads(1)
    torch.manual_seed(args.seed)  # the same initial weights on every rank (DDP also broadcasts them)

    sys.addaudithook(note_opens)
    d = shard_dir(args)
    m, entry = check_manifest(d, rank, size)
    tr_uids, tr_centers, tr_y = read_shard(os.path.join(d, entry["train"]["file"]))
    va_uids, va_centers, va_y = read_shard(os.path.join(d, entry["val"]["file"]))
    print(
        f"rank {rank}/{size} reads {os.path.join(d, entry['train']['file'])}: {len(tr_y)} candidates "
        f"({int(tr_y.sum())} positive) in {len(set(tr_uids))} series; validation {len(va_y)} ({int(va_y.sum())} positive) "
        f"in {len(set(va_uids))} series",
        flush=True,
    )
    source = ct_source(args, d, m, entry)
    # Every crop is made before the first epoch (each CT series read once): epochs read no CT file.
    tr_x = make_inputs(source, tr_uids, tr_centers, tr_y)
    va_x = make_inputs(source, va_uids, va_centers, va_y)
    if source is not None:
        where = f"; crops cached in {source.cache_dir}" if source.cache_dir else ""
        print(f"rank {rank}/{size} read {source.ct_reads} CT series from {source.data_root}{where}", flush=True)
    if tr_x is None:
        raise SystemExit(f"train.py: rank {rank} has an empty training shard")
    before_epochs = set(OPENED)

    agreed = collective_buffer(1, dtype=torch.int64).fill_(min(len(tr_y), args.max_samples))
    dist.all_reduce(agreed, op=dist.ReduceOp.MAX)
    sampler = ShardSampler(tr_y, int(agreed.item()), args.seed, rank)

    model = LunaModel().to(device)
    ddp = DDP(model, device_ids=[device.index] if device.type == "cuda" else None)
    opt = torch.optim.Adam(ddp.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss(reduction="none")
    tr_labels = torch.from_numpy(tr_y)
    va_labels = torch.from_numpy(va_y)

    val = collective_buffer(8, dtype=torch.float64)
    for epoch in range(1, args.epochs + 1):
        sampler.set_epoch(epoch)
        idx = torch.from_numpy(sampler.indices())
        ddp.train()
        trn = torch.zeros(8, dtype=torch.float64)
        for start in range(0, len(idx), args.batch_size):
            b = idx[start:start + args.batch_size]
            x, y = tr_x[b].to(device), tr_labels[b].to(device)
            logits = ddp(x)
            each = loss_fn(logits, y)
            each.mean().backward()
            opt.step()
            opt.zero_grad()
            trn += count(logits.detach().cpu(), y.cpu(), each.detach().cpu())
        for line in metrics_lines(epoch, "trn", trn.tolist(), False):
            print(line, flush=True)

        model.eval()
        val.zero_()
        with torch.no_grad():
            for start in range(0, len(va_y), 256):
                x, y = va_x[start:start + 256].to(device), va_labels[start:start + 256].to(device)
                logits = model(x)
                val += count(logits.cpu(), y.cpu(), loss_fn(logits, y).cpu())
        dist.all_reduce(val, op=dist.ReduceOp.SUM)
        for line in metrics_lines(epoch, "val", val.tolist(), True):
            print(line, flush=True)

    print(f"rank {rank}/{size} opened {json.dumps(sorted(OPENED))}", flush=True)
    print(f"rank {rank}/{size} opened during the epochs {json.dumps(sorted(OPENED - before_epochs))}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
