#!/usr/bin/python3
"""Cross-checks ordo's safetensors files against the reference implementation's rules.

The `safetensors` Python package is not available here, so this file carries a small
pure-Python mirror of huggingface/safetensors (safetensors/src/tensor.rs):
  ref_read       SafeTensors::read_metadata + Metadata::validate (what load_file accepts)
  ref_serialize  prepare() + serialize() (what save_file writes, byte for byte)
and loads tensor data with torch.frombuffer, as safetensors.torch does.

  st_check.py check FILE         FILE (from `test_safetensors --write-sample`) is valid, is
                                 byte-identical to what the reference writes for the same
                                 tensors, and loads into torch with the expected values
  st_check.py write-sample FILE  write a mixed-dtype file exactly as the reference would
                                 (read back by `test_safetensors --check-sample`)
  st_check.py reject DIR         files from `test_safetensors --write-bad`: bad_* must be
                                 rejected by the reference rules, ok_* and strict_* accepted
                                 (strict_*: ordo is deliberately stricter than the reference)
"""
import json
import os
import struct
import sys

MAX_HEADER_SIZE = 100_000_000
# The reference's Dtype enum, in its declaration order (writers sort by it, descending).
DTYPES = ["BOOL", "F4", "F6_E2M3", "F6_E3M2", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0",
          "F8_E4M3FNUZ", "F8_E5M2FNUZ", "I16", "U16", "F16", "BF16", "I32", "U32", "F32", "C64",
          "F64", "I64", "U64"]
BITS = {"BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8, "F8_E5M2": 8,
        "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8, "I16": 16, "U16": 16,
        "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32, "C64": 64, "F64": 64,
        "I64": 64, "U64": 64}
USIZE_MAX = 2**64 - 1


class RefError(Exception):
    pass


def _usize(x, what):
    # serde: usize accepts JSON integers 0..2^64-1 only (no floats, no bools).
    if type(x) is not int or x < 0 or x > USIZE_MAX:
        raise RefError(f"JsonError: {what} is not a usize: {x!r}")
    return x


def _reject_constant(c):
    raise RefError(f"InvalidHeaderDeserialization: {c}")


def ref_read(buf):
    """Returns (metadata or None, [(name, dtype, shape, (begin, end))] in offset order, data)."""
    if len(buf) < 8:
        raise RefError("HeaderTooSmall")
    n = struct.unpack("<Q", buf[:8])[0]
    if n > MAX_HEADER_SIZE:
        raise RefError("HeaderTooLarge")
    if n + 8 > len(buf):
        raise RefError("InvalidHeaderLength")
    try:
        text = buf[8:8 + n].decode("utf-8")
    except UnicodeDecodeError as e:
        raise RefError(f"InvalidHeader: {e}")
    try:
        hdr = json.loads(text, parse_constant=_reject_constant)  # duplicate keys: last wins
    except (ValueError, RecursionError) as e:
        raise RefError(f"InvalidHeaderDeserialization: {e}")
    if not isinstance(hdr, dict):
        raise RefError("InvalidHeaderDeserialization: not a map")
    meta = hdr.pop("__metadata__", None)
    if meta is not None:
        if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
            raise RefError("InvalidHeaderDeserialization: __metadata__ is not a map of strings")
    tensors = []
    for name, info in hdr.items():
        if not isinstance(info, dict):
            raise RefError(f"InvalidHeaderDeserialization: {name} is not a map")
        for field in ("dtype", "shape", "data_offsets"):
            if field not in info:
                raise RefError(f"InvalidHeaderDeserialization: {name} lacks {field}")
        dtype = info["dtype"]
        if not isinstance(dtype, str) or dtype not in BITS:
            raise RefError(f"InvalidHeaderDeserialization: unknown dtype {dtype!r}")
        shape = info["shape"]
        if not isinstance(shape, list):
            raise RefError("InvalidHeaderDeserialization: shape is not a sequence")
        shape = [_usize(d, "shape") for d in shape]
        offs = info["data_offsets"]
        if not isinstance(offs, list) or len(offs) != 2:
            raise RefError("InvalidHeaderDeserialization: data_offsets is not a pair")
        tensors.append((name, dtype, shape, (_usize(offs[0], "offset"),
                                             _usize(offs[1], "offset"))))
    tensors.sort(key=lambda t: t[3])
    start = 0
    for name, dtype, shape, (s, e) in tensors:
        if s != start or e < s:
            raise RefError(f"InvalidOffset({name})")
        start = e
        nel = 1
        for d in shape:
            nel *= d
            if nel > USIZE_MAX:
                raise RefError("ValidationOverflow")
        nbits = nel * BITS[dtype]
        if nbits > USIZE_MAX:
            raise RefError("ValidationOverflow")
        if nbits % 8:
            raise RefError("MisalignedSlice")
        if e - s != nbits // 8:
            raise RefError("TensorInvalidInfo")
    if start + 8 + n != len(buf):
        raise RefError("MetadataIncompleteBuffer")
    return meta, tensors, buf[8 + n:]


def ref_serialize(tensors, metadata):
    """tensors: {name: (dtype, shape, raw bytes)}; metadata: dict or None. Returns file bytes."""
    items = sorted(tensors.items(), key=lambda kv: (-DTYPES.index(kv[1][0]), kv[0]))
    hdr, off = {}, 0
    if metadata is not None:
        hdr["__metadata__"] = metadata
    for name, (dtype, shape, raw) in items:
        hdr[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + len(raw)]}
        off += len(raw)
    # serde_json::to_string: compact, only ", \ and control characters escaped.
    h = json.dumps(hdr, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(raw for _, (_, _, raw) in items)


def torch_load(meta_tensors_data):
    """What safetensors.torch.load_file returns, built with torch.frombuffer."""
    import torch
    tdt = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
           "F64": torch.float64, "I64": torch.int64, "I32": torch.int32, "I16": torch.int16,
           "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool}
    _, tensors, data = meta_tensors_data
    out = {}
    for name, dtype, shape, (s, e) in tensors:
        if e == s:
            out[name] = torch.empty(shape, dtype=tdt[dtype])
        else:
            out[name] = torch.frombuffer(bytearray(data[s:e]), dtype=tdt[dtype]).reshape(shape)
    return out


def raw(t):
    import torch
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.contiguous().numpy().tobytes()


def sample_tensors():
    """Must match write_sample() in tests/framework/test_safetensors.c."""
    import torch
    f32 = torch.float32
    return {
        "wte.weight": (torch.arange(20, dtype=f32) - 7).mul(0.125).reshape(5, 4),
        "h.0.attn.c_attn.bias": torch.tensor([1.0 / (i + 1) for i in range(12)], dtype=f32),
        "ln_f.weight": torch.tensor([1.0, -0.0, float("inf"), 1e-45], dtype=f32),
        "scalar": torch.tensor(3.5, dtype=f32),
        "empty": torch.zeros(0, 3, dtype=f32),
    }


SAMPLE_META = {"format": "pt", "step": "200", "config": '{"n_embd": 4, "pos": "rope"}',
               "note": 'tab\there "q" back\\slash caf\u00e9 \u2713 \x01'}


def cmd_check(path):
    import torch
    buf = open(path, "rb").read()
    parsed = ref_read(buf)
    meta, tensors, _ = parsed
    assert meta == SAMPLE_META, meta
    want = sample_tensors()
    ref = ref_serialize({k: ("F32", list(v.shape), raw(v)) for k, v in want.items()}, SAMPLE_META)
    if buf != ref:
        i = next((i for i in range(min(len(buf), len(ref))) if buf[i] != ref[i]), None)
        raise AssertionError(f"{path}: differs from the reference serialization at byte {i}:\n"
                             f"  ordo: {buf[:200]!r}\n  ref:  {ref[:200]!r}")
    got = torch_load(parsed)
    assert sorted(got) == sorted(want), sorted(got)
    for k, v in want.items():
        g = got[k]
        assert g.dtype == torch.float32 and g.shape == v.shape, (k, g.dtype, g.shape)
        assert torch.equal(g.view(torch.int32), v.view(torch.int32)), (k, g, v)  # bit-exact
    print(f"st_check: {path}: {len(tensors)} tensors, byte-identical to the reference layout, "
          f"torch values bit-exact")


def cmd_write_sample(path):
    import torch
    t = {
        "a.f32": torch.arange(6, dtype=torch.float32).mul(0.5).sub(1).reshape(2, 3),
        "b.f16": torch.tensor([1.0, 0.5, -2.0], dtype=torch.float16),
        "c.bf16": torch.tensor([[1.0, -1.0], [0.5, 2.0]], dtype=torch.bfloat16),
        "d.i64": torch.tensor([-3, 1 << 40], dtype=torch.int64),
        "e.bool": torch.tensor([True, False, True]),
        "f.u8": torch.tensor([0, 1, 254, 255], dtype=torch.uint8),
        "g.f64": torch.tensor([3.141592653589793], dtype=torch.float64),
        "h.f32": torch.zeros(0, dtype=torch.float32),
        "i.i32": torch.tensor(7, dtype=torch.int32),
        "z.f32": torch.tensor([1e-3, -2.5, 1e30, 0.1], dtype=torch.float32),
    }
    names = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
             torch.int64: "I64", torch.bool: "BOOL", torch.uint8: "U8", torch.float64: "F64",
             torch.int32: "I32"}
    buf = ref_serialize({k: (names[v.dtype], list(v.shape), raw(v)) for k, v in t.items()},
                        {"format": "pt", "source": "python"})
    back = torch_load(ref_read(buf))  # self-check of the mirror
    for k, v in t.items():
        assert torch.equal(back[k], v), k
    with open(path, "wb") as f:
        f.write(buf)
    print(f"st_check: wrote {path} ({len(buf)} bytes) as the reference would")


def cmd_reject(d):
    failures = 0
    files = sorted(f for f in os.listdir(d) if f.endswith(".safetensors"))
    for f in files:
        try:
            ref_read(open(os.path.join(d, f), "rb").read())
            verdict = None
        except RefError as e:
            verdict = str(e)
        should_reject = f.startswith("bad_")
        ok = (verdict is not None) == should_reject
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {f}: reference {'rejects: ' + verdict if verdict else 'accepts'}")
    if not files:
        print("no files")
        return 1
    return 1 if failures else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "check":
        cmd_check(argv[2])
        return 0
    if len(argv) == 3 and argv[1] == "write-sample":
        cmd_write_sample(argv[2])
        return 0
    if len(argv) == 3 and argv[1] == "reject":
        return cmd_reject(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
