"""Minimal pure-Python safetensors reader/writer (numpy only; torch optional).

Format (https://github.com/huggingface/safetensors):
  bytes 0..8      N, little-endian u64: length of the JSON header
  bytes 8..8+N    JSON header, UTF-8, padded with spaces (0x20) to a multiple of 8:
                    {"__metadata__": {str: str, ...},            (optional)
                     "<name>": {"dtype": "F32", "shape": [...],
                                "data_offsets": [begin, end]}, ...}
                  offsets are relative to the start of the data section
  bytes 8+N..     data section: raw little-endian tensor bytes, contiguous, row-major

Writing follows the reference (Rust) implementation: tensors are laid out in the data
section sorted by dtype alignment (descending), then by name; the header is compact JSON
(no spaces), "__metadata__" first, then the tensors in data order.  For the all-F32 files of
this project that means: sorted by name.
"""

import json
import struct

import numpy as np

# safetensors dtype string -> (numpy little-endian dtype, alignment/size in bytes)
_DTYPES = {
    "F64": ("<f8", 8), "I64": ("<i8", 8), "U64": ("<u8", 8),
    "F32": ("<f4", 4), "I32": ("<i4", 4), "U32": ("<u4", 4),
    "F16": ("<f2", 2), "I16": ("<i2", 2), "U16": ("<u2", 2),
    "I8": ("i1", 1), "U8": ("u1", 1), "BOOL": ("?", 1),
}
_KIND = {("f", 8): "F64", ("i", 8): "I64", ("u", 8): "U64",
         ("f", 4): "F32", ("i", 4): "I32", ("u", 4): "U32",
         ("f", 2): "F16", ("i", 2): "I16", ("u", 2): "U16",
         ("i", 1): "I8", ("u", 1): "U8", ("b", 1): "BOOL"}


def _to_numpy(t):
    """Accept numpy arrays, torch tensors and python scalars/lists."""
    if hasattr(t, "detach"):  # torch.Tensor
        t = t.detach().cpu().contiguous().numpy()
    return np.ascontiguousarray(np.asarray(t))


def _st_dtype(a):
    try:
        return _KIND[(a.dtype.kind, a.dtype.itemsize)]
    except KeyError:
        raise TypeError("safetensors_py: unsupported dtype %s" % a.dtype) from None


def save(tensors, path, metadata=None):
    """Write dict name -> array/tensor to `path`. metadata: dict str -> str (or None)."""
    arrays = {}
    for name, t in tensors.items():
        if not isinstance(name, str) or name == "__metadata__":
            raise ValueError("safetensors_py: bad tensor name %r" % (name,))
        arrays[name] = _to_numpy(t)
    order = sorted(arrays, key=lambda n: (-_DTYPES[_st_dtype(arrays[n])][1], n))

    header = {}
    if metadata:
        for k, v in metadata.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise TypeError("safetensors_py: metadata must be str -> str (%r: %r)" % (k, v))
        header["__metadata__"] = dict(metadata)
    blobs, off = [], 0
    for name in order:
        a = arrays[name]
        st = _st_dtype(a)
        b = a.astype(_DTYPES[st][0], copy=False).tobytes(order="C")
        header[name] = {"dtype": st, "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    hjson = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    hjson += b" " * ((8 - len(hjson) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hjson)))
        f.write(hjson)
        for b in blobs:
            f.write(b)


def load(path, with_metadata=False):
    """Read a safetensors file -> dict name -> numpy array (and the metadata dict if asked).

    Checks the invariants the format requires: header inside the file, offsets contiguous,
    in bounds, and consistent with dtype and shape."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ValueError("%s: too short for a safetensors file" % path)
    (n,) = struct.unpack("<Q", raw[:8])
    if n > len(raw) - 8:
        raise ValueError("%s: header length %d past end of file" % (path, n))
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", None) or {}
    data = raw[8 + n:]
    out = {}
    spans = []
    for name, info in header.items():
        st = info["dtype"]
        if st not in _DTYPES:
            raise ValueError("%s: tensor %s: unsupported dtype %s" % (path, name, st))
        npdt, size = _DTYPES[st]
        shape = tuple(int(s) for s in info["shape"])
        b, e = (int(x) for x in info["data_offsets"])
        count = 1
        for s in shape:
            count *= s
        if not (0 <= b <= e <= len(data)) or e - b != count * size:
            raise ValueError("%s: tensor %s: bad data_offsets %r for %s%r" % (path, name, (b, e), st, shape))
        spans.append((b, e))
        out[name] = np.frombuffer(data, dtype=npdt, count=count, offset=b).reshape(shape).copy()
    spans.sort()
    pos = 0
    for b, e in spans:
        if b != pos:
            raise ValueError("%s: data section is not contiguous at byte %d" % (path, b))
        pos = e
    if pos != len(data):
        raise ValueError("%s: %d trailing bytes after the last tensor" % (path, len(data) - pos))
    return (out, meta) if with_metadata else out


def load_torch(path, dtype=None, with_metadata=False):
    """Like load() but returns torch tensors (optionally cast to `dtype`)."""
    import torch
    d, meta = load(path, with_metadata=True)
    t = {k: (torch.from_numpy(v).to(dtype) if dtype is not None else torch.from_numpy(v)) for k, v in d.items()}
    return (t, meta) if with_metadata else t
