#!/usr/bin/python3
"""Fixtures of --pos-random for the relative schemes, called by
make_fixtures.py (run that one; this file alone rewrites only its own files). Same layout as
the other gpt_*_rand files (weights, batch, batch.pos [B, T] float ids, logits, loss, every
grad.*): 3 sequences of 16 tokens, each at its own sorted subset of 16 positions of [0, N),
as training draws them, N = 64 unless named:

  gpt_alibi_rand.safetensors         alibi: -m_h (pos_i - pos_j)
  gpt_alibi_heads_rand.safetensors   alibi on heads 0..2 of 4 (alibi_heads 3)
  gpt_t5_rand.safetensors            t5: the buckets of the drawn distances
  gpt_t5_rand_far.safetensors        t5 at N = 512: distances past 128 (the last bucket)
  gpt_fire_rand.safetensors          fire, L = 20 inside [0, N): the normaliser max(pos_i, L)
  gpt_kerple_rand.safetensors        kerple (log)
  gpt_kerple-power_rand.safetensors  kerple-power
  gpt_xpos_rand.safetensors          xpos: rotation and decay at pos_i, centred on [0, N)
  gpt_dpb_rand.safetensors           dpb: its MLP over the distances 0..N-1
  gpt_dpb_log_rand.safetensors       dpb with log distance, depth 3, dim 16
"""

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpt_ref  # noqa: E402
import make_fixtures_posopts as po  # noqa: E402

CASES = [  # name, pos, seed, N, options, weight overrides
    ("alibi_rand", "alibi", 431, 64, {}, {}),
    ("alibi_heads_rand", "alibi", 432, 64, {"alibi_heads": 3}, {}),
    ("t5_rand", "t5", 433, 64, {}, {}),
    ("t5_rand_far", "t5", 434, 512, {}, {}),
    ("fire_rand", "fire", 435, 64, {}, {"fire.L_multiplier": [20.0 / 512], "fire.c": [-0.35]}),
    ("kerple_rand", "kerple", 436, 64, {}, {}),
    ("kerple-power_rand", "kerple-power", 437, 64, {}, {}),
    ("xpos_rand", "xpos", 438, 64, {}, {}),
    ("dpb_rand", "dpb", 439, 64, {}, {}),
    ("dpb_log_rand", "dpb", 440, 64, {"dpb_log_distance": True, "dpb_depth": 3, "dpb_dim": 16}, {}),
]


def fixtures():
    for name, pos, seed, N, opts, over in CASES:
        g = torch.Generator().manual_seed(seed)
        cfg = gpt_ref.GPTConfig(64, 32, 2, 4, 16, pos, pos_random=N, **opts)
        w = po.mf.draw_weights(gpt_ref.GPT(cfg), g)
        for k, v in over.items():
            w[k] = torch.tensor(v, dtype=torch.float32)
        idx, tgt = po.batch(g, 64, 3, 16)
        po.save(name, cfg, w, idx, tgt, True, positions=po.random_positions(g, 3, 16, N))


if __name__ == "__main__":
    fixtures()
