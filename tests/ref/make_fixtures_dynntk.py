#!/usr/bin/python3
"""Fixtures of --rope-scaling dynamic-ntk (HF transformers' DynamicNTKScalingRotaryEmbedding,
Peng et al. 2023 B.3), called by make_fixtures.py (run that one; this file alone rewrites only
its own files). Same layout as the other gpt_* files, the scaling in the metadata as ordo
writes it (rope_scaling, rope_factor, rope_orig_context):

  gpt_rope_dynntk.safetensors       rope, head size 8, trained length 16, at T 16: unscaled
  gpt_rope_dynntk_T40.safetensors   its weights at T 40: base 10000 (40/16)^(8/6), with grads
  gpt_rope_dynntk_f2_T40.safetensors  scaling factor 2 at T 40: base 10000 (2*40/16 - 1)^(8/6)
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
    g = torch.Generator().manual_seed(621)
    cfg = gpt_ref.GPTConfig(64, 32, 2, 4, 16, "rope", rope_scaling="dynamic-ntk", rope_factor=1.0)
    w = mf.draw_weights(gpt_ref.GPT(cfg), g)
    fn = po.save("rope_dynntk", cfg, w, *po.batch(g, cfg.V, 3, 16), True)
    po.save("rope_dynntk_T40", cfg, w, *po.batch(g, cfg.V, 2, 40), True, weights=fn)
    f2 = gpt_ref.GPTConfig(64, 32, 2, 4, 16, "rope", rope_scaling="dynamic-ntk", rope_factor=2.0)
    po.save("rope_dynntk_f2_T40", f2, w, *po.batch(g, cfg.V, 2, 40), True, weights=fn)


if __name__ == "__main__":
    fixtures()
