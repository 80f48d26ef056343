#!/usr/bin/python3
"""Loads a Hugging Face GPT-2 folder (as `ordo export --hf` writes it) the way transformers'
GPT2LMHeadModel does, and computes its logits. transformers is not installed here, so this is
its GPT-2 forward written out in torch (modeling_gpt2.py, eager attention), and the loading
rules it applies:

- config.json: model_type "gpt2"; the forward reads n_embd, n_layer, n_head, n_inner (None =
  4 * n_embd), activation_function, layer_norm_epsilon, scale_attn_weights,
  scale_attn_by_inverse_layer_idx, reorder_and_upcast_attn, tie_word_embeddings and the
  dropouts (all must be 0 for eval to be exact, and are only checked);
- model.safetensors: the state dict of GPT2LMHeadModel, `transformer.` names, Conv1D weights
  [in, out] (y = x @ W + b), no missing and no unexpected key (lm_head.weight may be absent
  when tied, as transformers saves it), metadata "format" = "pt".

    h = wte[idx] + wpe[0..T)             (always: GPT-2 has no other position input)
    per block: h = h + c_proj(attn(ln_1(h))); h = h + c_proj(gelu_new(c_fc(ln_2(h))))
    logits = ln_f(h) @ wte^T             (tied head)

The forward runs in float64 on the float32 weights. Run with the Debian interpreter
(/usr/bin/python3, torch 1.13):

    /usr/bin/python3 tests/ref/hf_gpt2.py DIR --idx "1 2 3; 4 5 6" [--out LOGITS.safetensors]

--out writes "idx" [B, T] and "logits" [B, T, V] (F32) for tests/eval/test_export.c.
"""

import argparse
import json
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_py  # noqa: E402

ACT = {  # transformers' ACT2FN entries that GPT-2 configs use
    "gelu_new": lambda x: 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3))),
    "gelu": lambda x: 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0))),
}


def load_folder(folder):
    """config dict and float64 state dict of an HF GPT-2 folder, checked as from_pretrained checks."""
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    assert cfg["model_type"] == "gpt2", cfg["model_type"]
    assert cfg.get("architectures") == ["GPT2LMHeadModel"], cfg.get("architectures")
    for k in ("resid_pdrop", "embd_pdrop", "attn_pdrop"):
        assert cfg.get(k, 0.1) == 0.0, f"{k} = {cfg.get(k)}: eval is exact only without dropout"
    assert cfg.get("tie_word_embeddings", True) is True
    sd, meta = safetensors_py.load(os.path.join(folder, "model.safetensors"), with_metadata=True)
    assert meta and meta.get("format") == "pt", f"metadata {meta}: transformers wants format pt"
    C, L, V, P = cfg["n_embd"], cfg["n_layer"], cfg["vocab_size"], cfg["n_positions"]
    inner = cfg.get("n_inner") or 4 * C
    want = {"transformer.wte.weight": (V, C), "transformer.wpe.weight": (P, C),
            "transformer.ln_f.weight": (C,), "transformer.ln_f.bias": (C,)}
    for l in range(L):
        p = f"transformer.h.{l}."
        want.update({p + "ln_1.weight": (C,), p + "ln_1.bias": (C,),
                     p + "attn.c_attn.weight": (C, 3 * C), p + "attn.c_attn.bias": (3 * C,),
                     p + "attn.c_proj.weight": (C, C), p + "attn.c_proj.bias": (C,),
                     p + "ln_2.weight": (C,), p + "ln_2.bias": (C,),
                     p + "mlp.c_fc.weight": (C, inner), p + "mlp.c_fc.bias": (inner,),
                     p + "mlp.c_proj.weight": (inner, C), p + "mlp.c_proj.bias": (C,)})
    got = {k: v for k, v in sd.items() if k != "lm_head.weight"}
    missing, unexpected = sorted(set(want) - set(got)), sorted(set(got) - set(want))
    assert not missing and not unexpected, f"missing {missing}, unexpected {unexpected}"
    for k, shape in want.items():
        assert tuple(got[k].shape) == shape, f"{k}: shape {got[k].shape}, GPT-2 wants {shape}"
        assert got[k].dtype == np.float32, f"{k}: dtype {got[k].dtype}"
    if "lm_head.weight" in sd:
        assert np.array_equal(sd["lm_head.weight"], sd["transformer.wte.weight"])
    return cfg, {k: torch.from_numpy(np.array(v)).double() for k, v in got.items()}


def forward(cfg, w, idx):
    """GPT2LMHeadModel(idx).logits in float64 (eval: no dropout, no cache, no padding mask)."""
    C, NH, eps = cfg["n_embd"], cfg["n_head"], cfg["layer_norm_epsilon"]
    hs = C // NH
    act = ACT[cfg["activation_function"]]
    B, T = idx.shape
    assert T <= cfg["n_positions"], f"T = {T} past n_positions {cfg['n_positions']}"
    ln = lambda x, p: torch.nn.functional.layer_norm(x, (C,), w[p + ".weight"], w[p + ".bias"], eps)
    conv1d = lambda x, p: x @ w[p + ".weight"] + w[p + ".bias"]  # transformers' Conv1D
    h = w["transformer.wte.weight"][idx] + w["transformer.wpe.weight"][torch.arange(T)]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for l in range(cfg["n_layer"]):
        p = f"transformer.h.{l}."
        q, k, v = conv1d(ln(h, p + "ln_1"), p + "attn.c_attn").split(C, dim=2)
        q, k, v = (t.view(B, T, NH, hs).transpose(1, 2) for t in (q, k, v))
        att = q @ k.transpose(-1, -2)
        if cfg.get("scale_attn_weights", True):
            att = att / math.sqrt(hs)
        if cfg.get("scale_attn_by_inverse_layer_idx", False):
            att = att / float(l + 1)
        att = torch.where(causal, att, torch.tensor(torch.finfo(att.dtype).min, dtype=att.dtype))
        y = (att.softmax(dim=-1) @ v).transpose(1, 2).reshape(B, T, C)
        h = h + conv1d(y, p + "attn.c_proj")
        h = h + conv1d(act(conv1d(ln(h, p + "ln_2"), p + "mlp.c_fc")), p + "mlp.c_proj")
    return ln(h, "transformer.ln_f") @ w["transformer.wte.weight"].T


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--idx", required=True, help='rows of ids: "1 2 3; 4 5 6"')
    ap.add_argument("--out", help="write idx and logits (F32) to this safetensors file")
    a = ap.parse_args()
    cfg, w = load_folder(a.folder)
    idx = torch.tensor([[int(x) for x in row.split()] for row in a.idx.split(";")])
    logits = forward(cfg, w, idx)
    print(f"{a.folder}: logits {tuple(logits.shape)}, first row {logits[0, 0, :4].tolist()}")
    if a.out:
        safetensors_py.save({"idx": idx.float().numpy(), "logits": logits.float().numpy()}, a.out)


if __name__ == "__main__":
    main()
