#!/usr/bin/python3
"""Fixtures of cope, contextual position encoding, called by make_fixtures.py
(run that one; this file alone rewrites only its own files). The bias is the paper's reference
code (gpt_ref.CoPE, one per head: gpt_ref.CoPEHeads). Same layout as the other gpt_* files
(weights, batch, logits, loss, every grad.*):

  gpt_cope.safetensors        cope, T 16, P = T_max + 1 = 17 (the default: nothing clamped)
  gpt_cope_T64.safetensors    its weights at T 64 (4x the training length: counts past 16
                              clamped at P - 1), with grads
  gpt_cope_p6.safetensors     --cope-max 6, T 16: most pairs clamped at the training length

The embeddings are drawn N(0, 0.5): their init, zeros, would give no bias and no gradient
through the gates. The other weights are those of every gpt_* fixture (c_attn N(0, 0.2): the
scores q.k / sqrt(hs) spread about +-1, the gates over about 0.25..0.75).
"""

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpt_ref  # noqa: E402
import make_fixtures as mf  # noqa: E402
import make_fixtures_posopts as po  # noqa: E402


def draw(cfg, g):
    w = mf.draw_weights(gpt_ref.GPT(cfg), g)
    for name in w:
        n = torch.randn(w[name].shape, generator=g, dtype=torch.float32)
        if name.endswith("attn.cope.pos_emb"):
            w[name] = 0.5 * n
    return w


def fixtures():
    g = torch.Generator().manual_seed(601)
    cfg = gpt_ref.GPTConfig(64, 32, 2, 4, 16, "cope")
    w = draw(cfg, g)
    idx, tgt = po.batch(g, 64, 3, 16)
    wfn = po.save("cope", cfg, w, idx, tgt, True)
    g = torch.Generator().manual_seed(602)
    idx, tgt = po.batch(g, 64, 2, 64)
    po.save("cope_T64", cfg, w, idx, tgt, True, weights=wfn)
    g = torch.Generator().manual_seed(603)
    cfg = gpt_ref.GPTConfig(64, 32, 2, 4, 16, "cope", cope_max=6)
    w = draw(cfg, g)
    idx, tgt = po.batch(g, 64, 3, 16)
    po.save("cope_p6", cfg, w, idx, tgt, True)


if __name__ == "__main__":
    fixtures()
