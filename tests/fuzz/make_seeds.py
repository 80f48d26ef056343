#!/usr/bin/env python3
"""Writes the fuzz seed corpora under tests/fuzz/<target>/ (small files, committed).

Run from the checkout: python3 tests/fuzz/make_seeds.py [VOCAB_DIR]
VOCAB_DIR (default .cache/gpt2) holds GPT-2's encoder.json and vocab.bpe; the vocab seeds
are GPT-2's vocabulary truncated to its first 256 + k tokens plus <|endoftext|> (a valid
small vocabulary: merge i makes id 256 + i). Regenerate only on purpose.
The token-file seeds are written by ordo itself (`ordo tokenize --out`, ORDO_BIN, default
build/ordo), since their header holds an XXH3 hash that Python's standard library lacks.
"""
import json, os, struct, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def put(target, name, data):
    d = os.path.join(HERE, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def st_file(tensors, meta=None, pad=True, raw_header=None):
    """safetensors bytes: tensors = [(name, dtype, shape, data bytes)]"""
    hdr, off, blob = {}, 0, b""
    if meta is not None:
        hdr["__metadata__"] = meta
    for name, dt, shape, data in tensors:
        hdr[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + len(data)]}
        off += len(data)
        blob += data
    h = raw_header if raw_header is not None else json.dumps(hdr, separators=(",", ":")).encode()
    if pad:
        h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + blob


def f32(*xs):
    return struct.pack("<%df" % len(xs), *xs)


def safetensors():
    put("safetensors", "f32_2x3", st_file([("w", "F32", [2, 3], f32(1, 2, 3, 4, 5, 6))]))
    put("safetensors", "meta_scalar", st_file([("s", "F32", [], f32(7.5))], {"format": "pt", "k": "v"}))
    put("safetensors", "empty", st_file([]))
    put("safetensors", "zero_elems", st_file([("z", "F32", [0, 4], b"")]))
    put("safetensors", "dtypes", st_file([
        ("a", "F16", [2], b"\x00\x3c\x00\x40"), ("b", "BF16", [1], b"\x80\x3f"),
        ("c", "I64", [1], struct.pack("<q", -5)), ("d", "U8", [3], b"abc"),
        ("e", "BOOL", [2], b"\x01\x00"), ("f", "F4", [2], b"\x21"),
        ("g", "F6_E2M3", [4], b"\x01\x02\x03"), ("h", "F64", [1], struct.pack("<d", 1.5)),
        ("i", "C64", [1], f32(1, 2)), ("j", "F8_E4M3", [1], b"\x38")]))
    put("safetensors", "gpt_like", st_file([
        ("wte.weight", "F32", [3, 2], f32(*range(6))), ("h.0.ln_1.bias", "F32", [2], f32(0, 0)),
        ("optim.m.wte.weight", "F32", [3, 2], f32(*([0] * 6)))],
        {"format": "ordo-checkpoint-1", "step": "3"}))
    put("safetensors", "unpadded", st_file([("x", "F32", [1], f32(1))], pad=False))
    put("safetensors", "null_meta", st_file([], raw_header=b'{"__metadata__":null}'))


def checkpoint():
    cfg = {"batch": 4, "beta1": 0.9, "beta2": 0.95, "ckpt-every": 200, "clip": 1.0, "context": 16,
           "corpus-tokens": 2000, "d-model": 16, "data": None, "data-seed": 1234, "drop-last": 1,
           "eps": 1e-8, "eval-batches": 20, "eval-every": 100, "heads": 2, "init": None, "keep": 3,
           "layers": 1, "log-every": 10, "lr": 0.001, "max-len": 16, "min-len": 1, "min-lr": 0.0001,
           "momentum": 0.9, "no-decay-pos": 0, "optimizer": "adamw", "out": "runs/x",
           "pos": "learned", "schedule": "cosine", "seed": 1, "shuffle": 1, "steps": 2, "stride": 0,
           "task": "order", "threads": 1, "tokenizer": "gpt2", "val-frac": 0.1, "vocab": None,
           "warmup": 20, "weight-decay": 0.1}

    def lines(c, step="2", rng="df45471f65b763b5 5b006d8e56291f75 132f6a4090bc9ff2 ce0f951d18ddfd6b",
              dl='{"seed":1,"epoch":0,"cursor":8}', optim_t="2", extra=""):
        return ("format=ordo-checkpoint-1\nconfig=%s\nstep=%s\nrng=%s\ndataloader=%s\noptim_t=%s\n"
                "V=17\nC=16\nL=1\nNH=2\nT_max=16\npos=%s\n%s" % (
                    json.dumps(c, sort_keys=True, separators=(",", ":")), step, rng, dl, optim_t,
                    c["pos"], extra))
    put("checkpoint", "real", lines(cfg))
    put("checkpoint", "rope_epoch3", lines(dict(cfg, pos="rope", heads=4, steps=900), step="900",
                                           dl='{"seed":99,"epoch":3,"cursor":93}', optim_t="900"))
    put("checkpoint", "gpt2_data", lines(dict(cfg, data="train.txt", vocab="/v", task="copy",
                                              pos="t5", optimizer="sgd")))
    put("checkpoint", "bad_cursor", lines(cfg, dl='{"seed":1,"epoch":0,"cursor":-4}'))
    put("checkpoint", "other_format", "format=safetensors-pt\nstep=1\n")


def config():
    put("config", "small", json.dumps({"pos": "rope", "d-model": 32, "heads": 4, "layers": 2,
                                       "context": 32, "steps": 100, "lr": 3e-4}))
    put("config", "data", json.dumps({"data": "corpus.txt", "tokenizer": "byte", "vocab": None,
                                      "val-frac": 0.2, "no-decay-pos": True, "shuffle": 0}))
    put("config", "alibi_sgd", json.dumps({"pos": "alibi", "heads": 3, "d-model": 48,
                                           "optimizer": "sgd", "momentum": 0.5,
                                           "schedule": "linear", "warmup": 0, "clip": 0}))
    put("config", "task", json.dumps({"task": "reverse", "min-len": 2, "max-len": 8,
                                      "corpus-tokens": 5000, "stride": 3, "keep": 1}))
    put("config", "embed", json.dumps({"pos": "sinusoidal", "d-model": 32, "heads": 4, "layers": 1,
                                       "context": 16, "steps": 10, "embed-style": "vaswani",
                                       "embed-scale": "sqrt", "embed-std": 0.05}))
    put("config", "empty", "{}")


def vocab(vdir):
    enc = json.load(open(os.path.join(vdir, "encoder.json"), encoding="utf-8"))
    merges = open(os.path.join(vdir, "vocab.bpe"), encoding="utf-8").read().split("\n")
    by_id = {v: k for k, v in enc.items()}
    for k in (1, 8, 40):
        V = 256 + k + 1
        small = {by_id[i]: i for i in range(256 + k)}
        small["<|endoftext|>"] = 256 + k
        e = json.dumps(small, ensure_ascii=False, separators=(",", ":")).encode()
        m = ("\n".join(merges[:1 + k]) + "\n").encode()
        put("vocab", "gpt2_first_%d" % k, bytes([(V - 257) % 64]) + e + b"\0" + m)


def encode():
    texts = [b"Hello world! It's a test, isn't it?", b"  leading spaces\n\n\ttabs\r\n",
             b"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x98\x80 emoji",
             b"\xff\xfe\xc3\x28 invalid \x80\x80 utf-8", b"<|endoftext|>after<|endoftext|>",
             b"1234567890 3.14159 100,000", b" " * 200 + b"x", b"'s 've 're 'll 'd 'm 't"]
    for i, t in enumerate(texts):
        put("encode", "text%d" % i, bytes([i & 1]) + t)


def decode():
    seqs = [[40, 367, 2885, 1464], [50256, 0, 255, 256], [1807, 3619, 402, 271, 10899],
            [-1], [50257], [0x7fffffff, 5], []]
    for i, s in enumerate(seqs):
        put("decode", "ids%d" % i, struct.pack("<%di" % len(s), *s))


def tokfile(vdir):
    ordo = os.environ.get("ORDO_BIN", "build/ordo")
    texts = {"byte_hello": ("byte", b"hello, world\n"), "byte_nul": ("byte", b"a\0b\xff\n"),
             "gpt2_verdict": ("gpt2", b"I HAD always thought Jack Gisburn rather a cheap genius.")}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (tok, text) in texts.items():
            src, out = os.path.join(tmp, "in.txt"), os.path.join(tmp, "out.bin")
            open(src, "wb").write(text)
            vocab = ["--vocab", vdir] if tok == "gpt2" else []
            subprocess.run([ordo, "tokenize", "--tokenizer", tok, *vocab, "--out", out, src],
                           check=True, stdout=subprocess.DEVNULL)
            put("tokfile", name, open(out, "rb").read())
    # headers that the hash refuses, for the fuzzer to start from: 4-byte ids, a bad count
    hdr = lambda width, vocab, count, name: (b"ORDOTOK1" + struct.pack("<IIIIQQ", 1, width, vocab, 64,
                                             count, 0) + name.ljust(16, b"\0") + bytes(8))
    put("tokfile", "wide_unhashed", hdr(4, 70000, 2, b"gpt2") + struct.pack("<II", 5, 69999))
    put("tokfile", "short_payload", hdr(2, 256, 9, b"byte") + struct.pack("<HH", 1, 2))


# models/pos/table.h's order: the forward target's byte 0 picks the scheme by it
SCHEMES = ["none", "learned", "sinusoidal", "rope", "alibi", "t5", "fire", "kerple", "xpos",
           "kerple-power", "fox", "dpb", "cope", "sandwich"]


def forward():
    """Per scheme, weights that overflow the attention scores (layernorm gains, c_attn and the
    scheme's parameters x2^87: fused T 16, materialized T 37, sliding T 64), and everything
    x2^87 (the residual stream overflows: layernorm outputs its bias)."""
    scores = [40, 127, 127, 40, 40, 127]
    for i, name in enumerate(SCHEMES):
        put("forward", name + "_scores_fused_T16", bytes([i, 0b0010] + scores))
        put("forward", name + "_scores_mat_T37", bytes([i, 0b0101] + scores))
        put("forward", name + "_scores_sliding_T64", bytes([i, 0b1110] + scores))
        put("forward", name + "_all_fused_T37", bytes([i, 0b0100] + [127] * 6))


if __name__ == "__main__":
    vdir = sys.argv[1] if len(sys.argv) > 1 else ".cache/gpt2"
    safetensors()
    checkpoint()
    config()
    vocab(vdir)
    encode()
    decode()
    tokfile(vdir)
    forward()
