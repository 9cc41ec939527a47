"""Candidate crops for the LUNA example: from CT series (the book's Ct.getRawCandidate, each series read
once), optionally kept in a per-node cache of crops, or synthetic crops made from a candidate's CSV row
when the shards name no CT files."""
import hashlib
import os
import zlib

import numpy as np

from mhd import read_ct, xyz2irc


def raw_candidate(ct, center_xyz, width_irc):
    """The book's getRawCandidate: a width_irc chunk of hu_a around the candidate, shifted to fit inside."""
    center_irc = xyz2irc(center_xyz, ct.origin_xyz, ct.vxSize_xyz, ct.direction_a)
    slice_list = []
    for axis, center_val in enumerate(center_irc):
        start_ndx = int(round(center_val - width_irc[axis] / 2))
        end_ndx = int(start_ndx + width_irc[axis])
        if not 0 <= center_val < ct.hu_a.shape[axis]:
            raise ValueError(f"candidate {center_xyz} is outside the CT volume: voxel {center_irc}, shape {ct.hu_a.shape}")
        if start_ndx < 0:
            start_ndx, end_ndx = 0, int(width_irc[axis])
        if end_ndx > ct.hu_a.shape[axis]:
            end_ndx = ct.hu_a.shape[axis]
            start_ndx = int(ct.hu_a.shape[axis] - width_irc[axis])
        slice_list.append(slice(start_ndx, end_ndx))
    return np.array(ct.hu_a[tuple(slice_list)]), center_irc


def to_input(hu):
    """Hounsfield units -> network input: clipped to [-1000, 1000] as the book does, scaled to [-1, 1]."""
    return np.clip(hu.astype(np.float32), -1000, 1000) / 1000.0


class CtCrops:
    """Crops of one shard's candidates, series by series. Each series' CT is read once; with a cache
    directory, its crops are stored there (<uid>.<key>.npy, int16 HU) and loaded memory-mapped, so
    epochs read the cache and never the CT files."""

    def __init__(self, data_root, mhd_of, width, cache_dir=None, note_read=None):
        self.data_root, self.mhd_of, self.width = data_root, mhd_of, (width,) * 3
        self.cache_dir, self.note_read = cache_dir, note_read or (lambda path: None)
        self.ct_reads = 0

    def cache_file(self, uid, centers):
        key = hashlib.sha256(repr((self.width, [tuple(c) for c in centers])).encode()).hexdigest()[:16]
        return os.path.join(self.cache_dir, f"{uid}.{key}.npy")

    def series_crops(self, uid, centers):
        cached = self.cache_file(uid, centers) if self.cache_dir else None
        if cached and os.path.exists(cached):
            return np.load(cached, mmap_mode="r")
        if uid not in self.mhd_of:
            raise SystemExit(f"train.py: series {uid} has no .mhd file in the manifest's data_files")
        ct = read_ct(os.path.join(self.data_root, self.mhd_of[uid]))
        for f in ct.files:
            self.note_read(f)
        self.ct_reads += 1
        crops = np.stack([raw_candidate(ct, c, self.width)[0] for c in centers]).astype(np.int16)
        if not cached:
            return crops
        tmp = f"{cached}.tmp-{os.getpid()}.npy"
        np.save(tmp, crops)
        os.replace(tmp, cached)
        return np.load(cached, mmap_mode="r")

    def crops(self, uids, centers):
        """Crops (N, 1, W, W, W) float32 in row order; rows grouped by series so each CT is read once."""
        out = np.empty((len(uids), 1) + self.width, dtype=np.float32)
        by_series = {}
        for i, uid in enumerate(uids):
            by_series.setdefault(uid, []).append(i)
        if self.cache_dir:
            os.makedirs(self.cache_dir, exist_ok=True)
        for uid, rows in sorted(by_series.items()):
            out[rows, 0] = to_input(np.asarray(self.series_crops(uid, [centers[i] for i in rows])))
        return out


GRID_CACHE = {}


def synthetic_crop(key, label, width):
    """A deterministic width^3 'CT crop' for one candidate row (shards without CT files): noise, a bright
    sphere for a nodule, a tube (a vessel) or a faint speck otherwise."""
    if width not in GRID_CACHE:
        GRID_CACHE[width] = np.stack(np.meshgrid(*[np.arange(width, dtype=np.float32)] * 3, indexing="ij"))
    grid = GRID_CACHE[width]
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    vol = rng.normal(0.0, 1.0, (width,) * 3).astype(np.float32)
    center = width / 2 - 0.5 + rng.uniform(-2, 2, 3).astype(np.float32)
    d = grid - center[:, None, None, None]
    if label == 1:
        r = rng.uniform(2.5, 4.5)
        vol += rng.uniform(1.5, 2.5) * (np.sqrt((d ** 2).sum(0)) < r)
    elif rng.uniform() < 0.6:
        axis = rng.integers(0, 3)
        rest = [a for a in range(3) if a != axis]
        vol += rng.uniform(1.5, 2.5) * (np.sqrt((d[rest] ** 2).sum(0)) < rng.uniform(1.2, 2.2))
    else:
        vol += rng.uniform(0.5, 1.0) * (np.sqrt((d ** 2).sum(0)) < 1.5)
    return vol
