#!/usr/bin/python3
"""Fixtures of fox, the Forgetting Transformer's forget gate, called by
make_fixtures.py (run that one; this file alone rewrites only its own files). Same layout as
the other gpt_* files (weights, batch, logits, loss, every grad.*):

  gpt_fox.safetensors       fox, T 16: a gate per layer h.{l}.attn.fgate.{weight, bias}
  gpt_fox_T64.safetensors   its weights at T 64 (4x the training length), with grads

The gate's weight is drawn N(0, 0.3) and its bias 1 + N(0, 1), so that the gates spread over
0.3..0.99 and depend on the token (the init, N(0, 0.02) and 0, would give f near 1/2 everywhere).
"""

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpt_ref  # noqa: E402
import make_fixtures as mf  # noqa: E402
import make_fixtures_posopts as po  # noqa: E402


def fixtures():
    g = torch.Generator().manual_seed(501)
    cfg = gpt_ref.GPTConfig(64, 32, 2, 4, 16, "fox")
    w = mf.draw_weights(gpt_ref.GPT(cfg), g)
    for name in w:
        n = torch.randn(w[name].shape, generator=g, dtype=torch.float32)
        if name.endswith("attn.fgate.weight"):
            w[name] = 0.3 * n
        elif name.endswith("attn.fgate.bias"):
            w[name] = 1.0 + n
    idx, tgt = po.batch(g, 64, 3, 16)
    wfn = po.save("fox", cfg, w, idx, tgt, True)
    g = torch.Generator().manual_seed(502)
    idx, tgt = po.batch(g, 64, 2, 64)
    po.save("fox_T64", cfg, w, idx, tgt, True, weights=wfn)


if __name__ == "__main__":
    fixtures()
