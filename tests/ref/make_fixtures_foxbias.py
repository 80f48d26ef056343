#!/usr/bin/python3
"""Fixtures of --fox-gate-bias B (fox's forget gates start at f = sigmoid(B); the paper's code,
zhixuan-lin/forgetting-transformer, starts them at B = 0), called by make_fixtures.py (run that
one; this file alone rewrites only its own files). Same layout as the other gpt_* files, the
option in the metadata as ordo writes it (fox_gate_bias "%.17g", only when not 0):

  gpt_fox_bias5.safetensors       fox, B 5 (f near 0.993), T 16, with grads
  gpt_fox_bias5_T64.safetensors   its weights at T 64 (4x), with grads
  gpt_fox_bias_m2.safetensors     B -2 (f near 0.12: a strong recency), T 16, with grads

The gate biases are the reference's init (gpt_ref.GPT's init_gpt2: every one B), which
test_gpt_parity also compares, bit for bit, with ordo's init; every other weight is drawn as
make_fixtures.draw_weights draws it (the gate's weight N(0, 0.3), so that the gates depend on
the token: 5 + x.w spreads over about 0.9..0.999).
"""

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpt_ref  # noqa: E402
import make_fixtures as mf  # noqa: E402
import make_fixtures_posopts as po  # noqa: E402


def weights(cfg, g):
    model = gpt_ref.GPT(cfg)
    w = mf.draw_weights(model, g)
    for name, p in model.named_parameters():
        if name.endswith("attn.fgate.bias"):
            w[name] = p.detach().to(torch.float32).clone()
    return w


def fixtures():
    g = torch.Generator().manual_seed(631)
    cfg = gpt_ref.GPTConfig(64, 32, 2, 4, 16, "fox", fox_gate_bias=5.0)
    w = weights(cfg, g)
    fn = po.save("fox_bias5", cfg, w, *po.batch(g, cfg.V, 3, 16), True)
    po.save("fox_bias5_T64", cfg, w, *po.batch(g, cfg.V, 2, 64), True, weights=fn)
    g = torch.Generator().manual_seed(632)
    cfg = gpt_ref.GPTConfig(64, 32, 2, 4, 16, "fox", fox_gate_bias=-2.0)
    po.save("fox_bias_m2", cfg, weights(cfg, g), *po.batch(g, cfg.V, 3, 16), True)


if __name__ == "__main__":
    fixtures()
