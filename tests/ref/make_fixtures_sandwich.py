#!/usr/bin/python3
"""Fixtures of --pos sandwich (Chi et al. 2023), called by make_fixtures.py (run that one;
this file alone rewrites only its own files). Same layout as the other gpt_* files:

  gpt_sandwich.safetensors          the bias of head size 8 over 4 heads, T 16
  gpt_sandwich_T64.safetensors      its weights at T 64 (4x), with grads
  gpt_sandwich_rand.safetensors     at sorted positions of [0, 64) per sequence (batch.pos)
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
    g = torch.Generator().manual_seed(601)
    cfg = gpt_ref.GPTConfig(64, 32, 2, 4, 16, "sandwich")
    w = mf.draw_weights(gpt_ref.GPT(cfg), g)
    fn = po.save("sandwich", cfg, w, *po.batch(g, cfg.V, 3, 16), True)
    po.save("sandwich_T64", cfg, w, *po.batch(g, cfg.V, 2, 64), True, weights=fn)
    rand = gpt_ref.GPTConfig(64, 32, 2, 4, 16, "sandwich", pos_random=64)
    pos = po.random_positions(g, 3, 16, 64)
    po.save("sandwich_rand", rand, w, *po.batch(g, cfg.V, 3, 16), True, weights=fn, positions=pos)


if __name__ == "__main__":
    fixtures()
