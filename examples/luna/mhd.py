"""A small MetaImage reader for LUNA16 CT series (<seriesuid>.mhd header + .raw voxels), and the
world <-> voxel conversion of the Deep Learning with PyTorch book (p2ch10/util.py), with the header's
offset, spacing and direction.

SimpleITK reads the series when it is installed; otherwise the header is parsed here and the .raw
file is mapped with numpy.memmap (uncompressed data only, which is what LUNA16 ships). Either way the
voxels come back as hu_a[index, row, col] = [z, y, x], as sitk.GetArrayFromImage returns them.
"""
import os

import numpy as np

try:  # optional: the reference reader
    import SimpleITK as sitk
except ImportError:
    sitk = None

DTYPES = {
    "MET_CHAR": "i1", "MET_UCHAR": "u1", "MET_SHORT": "i2", "MET_USHORT": "u2",
    "MET_INT": "i4", "MET_UINT": "u4", "MET_FLOAT": "f4", "MET_DOUBLE": "f8",
}


def read_header(path):
    """The header's `Key = value` lines as a dict of strings."""
    out = {}
    with open(path, "r", encoding="latin-1") as fh:
        for line in fh:
            key, sep, value = line.partition("=")
            if sep:
                out[key.strip()] = value.strip()
    return out


class Ct:
    """One CT series: hu_a (z, y, x), origin_xyz, vxSize_xyz and direction_a (3x3: world = origin + D @ (ijk * spacing))."""

    def __init__(self, hu_a, origin_xyz, vxSize_xyz, direction_a, files):
        self.hu_a = hu_a
        self.origin_xyz = np.asarray(origin_xyz, dtype=np.float64)
        self.vxSize_xyz = np.asarray(vxSize_xyz, dtype=np.float64)
        self.direction_a = np.asarray(direction_a, dtype=np.float64).reshape(3, 3)
        self.files = files  # the files read (for the open() record: SimpleITK opens them in C++)


def read_ct(mhd_path, use_sitk=True):
    if use_sitk and sitk is not None:
        img = sitk.ReadImage(mhd_path)
        raw = os.path.join(os.path.dirname(mhd_path), read_header(mhd_path)["ElementDataFile"])
        return Ct(sitk.GetArrayFromImage(img), img.GetOrigin(), img.GetSpacing(), img.GetDirection(), [mhd_path, raw])
    h = read_header(mhd_path)
    if h.get("ObjectType", "Image") != "Image" or int(h.get("NDims", 0)) != 3:
        raise ValueError(f"{mhd_path}: not a 3-D MetaImage (ObjectType {h.get('ObjectType')}, NDims {h.get('NDims')})")
    if h.get("CompressedData", "False").lower() == "true":
        raise ValueError(f"{mhd_path}: compressed data: install SimpleITK to read it")
    if h.get("ElementDataFile", "LOCAL") in ("LOCAL", "LIST") or "%" in h["ElementDataFile"]:
        raise ValueError(f"{mhd_path}: ElementDataFile {h.get('ElementDataFile')!r}: only one separate data file is read here")
    if h.get("ElementNumberOfChannels", "1") != "1":
        raise ValueError(f"{mhd_path}: more than one channel per voxel")
    msb = h.get("BinaryDataByteOrderMSB", h.get("ElementByteOrderMSB", "False")).lower() == "true"
    dtype = np.dtype(DTYPES[h["ElementType"]]).newbyteorder(">" if msb else "<")
    nx, ny, nz = (int(v) for v in h["DimSize"].split())
    raw = os.path.join(os.path.dirname(mhd_path), h["ElementDataFile"])
    skip = max(0, int(h.get("HeaderSize", "0")))
    hu_a = np.memmap(raw, dtype=dtype, mode="r", offset=skip, shape=(nz, ny, nx))
    spacing = [float(v) for v in h.get("ElementSpacing", h.get("ElementSize", "1 1 1")).split()]
    origin = [float(v) for v in h.get("Offset", h.get("Origin", h.get("Position", "0 0 0"))).split()]
    # As ITK reads TransformMatrix: the i-th triple is the direction of voxel axis i, a column of D.
    t = [float(v) for v in h.get("TransformMatrix", "1 0 0 0 1 0 0 0 1").split()]
    return Ct(hu_a, origin, spacing, np.array(t).reshape(3, 3).T, [mhd_path, raw])


def xyz2irc(coord_xyz, origin_xyz, vxSize_xyz, direction_a):
    """World (x, y, z) mm -> voxel (index, row, col) = (z, y, x), rounded: solves world = origin + D (cri * spacing)."""
    cri_a = np.linalg.solve(direction_a, np.asarray(coord_xyz, dtype=np.float64) - origin_xyz) / vxSize_xyz
    cri_a = np.round(cri_a)
    return int(cri_a[2]), int(cri_a[1]), int(cri_a[0])


def irc2xyz(coord_irc, origin_xyz, vxSize_xyz, direction_a):
    cri_a = np.asarray(coord_irc, dtype=np.float64)[::-1]
    return tuple(direction_a @ (cri_a * vxSize_xyz) + origin_xyz)
