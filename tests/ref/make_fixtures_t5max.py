#!/usr/bin/python3
"""Fixtures of --t5-max-distance (HF T5's relative_attention_max_distance), called by
make_fixtures.py (run that one; this file alone rewrites only its own files). Same layout as the
other gpt_* files, the option in the metadata as ordo writes it:

  gpt_t5_max32.safetensors          t5 whose buckets end at 32, T 48: distances 16..31
                                    log-spaced over buckets 16..31, 32..47 all in bucket 31
  gpt_t5_max32_T96.safetensors      its weights at T 96, with grads
  gpt_t5_max512.safetensors         buckets ending at 512, T 48 (distance 47 in bucket 20, not
                                    24 as at 128), with grads
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
    g = torch.Generator().manual_seed(611)
    cfg = gpt_ref.GPTConfig(64, 32, 2, 4, 48, "t5", t5_max_distance=32)
    w = mf.draw_weights(gpt_ref.GPT(cfg), g)
    fn = po.save("t5_max32", cfg, w, *po.batch(g, cfg.V, 3, 48), True)
    po.save("t5_max32_T96", cfg, w, *po.batch(g, cfg.V, 2, 96), True, weights=fn)
    g = torch.Generator().manual_seed(612)
    cfg = gpt_ref.GPTConfig(64, 32, 2, 4, 48, "t5", t5_max_distance=512)
    w = mf.draw_weights(gpt_ref.GPT(cfg), g)
    po.save("t5_max512", cfg, w, *po.batch(g, cfg.V, 3, 48), True)


if __name__ == "__main__":
    fixtures()
