#!/usr/bin/python3
"""Fixtures of the model options, called by make_fixtures.py (run that one; this
file alone rewrites only its own files):

  gpt_untied.safetensors       learned positions with an untied LM head (ordo train
                               --untied-head): lm_head.weight [V, C] is the head, wte only the
                               input table; same layout as the other gpt_* files (weights,
                               batch, logits, loss, every grad.*), metadata untied_head = "1"
  gpt_untied_rope.safetensors  the same with rope and embed_scale 2.5 (the head unscaled)

Dropout is off in every fixture (PyTorch's masks are not ordo's); gradient accumulation needs
no fixture of its own: test_gpt_parity accumulates micro-batches of gpt_learned's batch and
compares with its whole-batch gradients.
"""

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpt_ref  # noqa: E402
import make_fixtures as mf  # noqa: E402
import safetensors_py  # noqa: E402


def fixtures():
    cases = [  # name, V, C, L, NH, T_max, pos, T, B, seed, embed_scale
        ("untied", 64, 32, 2, 4, 16, "learned", 16, 3, 301, 1.0),
        ("untied_rope", 64, 32, 2, 4, 16, "rope", 16, 3, 302, 2.5),
    ]
    for name, V, C, L, NH, T_max, pos, T, B, seed, scale in cases:
        g = torch.Generator().manual_seed(seed)
        cfg = gpt_ref.GPTConfig(V, C, L, NH, T_max, pos, scale, untied_head=True)
        w = mf.draw_weights(gpt_ref.GPT(cfg), g)
        idx = torch.randint(0, V, (B, T), generator=g)
        tgt = torch.randint(0, V, (B, T), generator=g)
        out = mf.run_model(cfg, w, idx, tgt)
        tensors = dict(w)
        tensors.update({"batch.idx": idx.float(), "batch.targets": tgt.float()})
        tensors.update(out)
        fn = "gpt_%s.safetensors" % name
        safetensors_py.save(tensors, os.path.join(mf.OUT, fn), mf.meta_for(cfg, T, B))
        mf.report(fn, out)


if __name__ == "__main__":
    fixtures()
