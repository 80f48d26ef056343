#!/usr/bin/python3
"""Fixtures of issue 26's position options (items 5 and 6), called by make_fixtures.py (run
that one; this file alone rewrites only its own files). Same layout as the other gpt_* files
(weights, batch, logits, loss, every grad.*), the options in the metadata as ordo writes them:

  gpt_rope_frac.safetensors         rope on the first 4 of 8 dims per head (rope_fraction 0.5,
                                    GPT-NeoX partial rotary: frequencies over the 4 dims)
  gpt_rope_frac_T64.safetensors     its weights at T 64 (4x), logits and loss
  gpt_rope_frac_yarn_T64.safetensors  its weights at T 64 with yarn x4 over the 4 dims, grads
  gpt_rope_heads.safetensors        rope on heads 0, 1 of 4 (rope_heads 2)
  gpt_rope_frac_heads.safetensors   rope_fraction 0.25 (2 dims) on heads 0..2 of 4
  gpt_alibi_heads.safetensors       alibi on heads 0..2 of 4 with the slopes of 3 heads
                                    (x-transformers alibi_num_heads 3), head 3 no bias
  gpt_alibi_heads_T64.safetensors   its weights at T 64, logits and loss
  gpt_learned_pscale.safetensors    learned table times a learned scalar wpe.scale
  gpt_sinusoidal_pscale.safetensors sinusoidal table times a learned wpe.scale
  gpt_sinusoidal_pscale_T64.safetensors  its weights at T 64, with grads
  gpt_sinusoidal_pfixed.safetensors sinusoidal table times the constant 0.5
  gpt_dpb.safetensors               dynamic position bias (item 1), dim 32, depth 2, raw distance
  gpt_dpb_log.safetensors           dpb with log distance, dim 16, depth 3
  gpt_dpb_T64.safetensors, gpt_dpb_log_T64.safetensors  their weights at T 64, with grads

wpe.scale is drawn 0.5 + 0.1 N (not its init C^-0.5) so that the gradient is not that of the
init alone.
"""

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpt_ref  # noqa: E402
import make_fixtures as mf  # noqa: E402
import safetensors_py  # noqa: E402


def save(name, cfg, w, idx, tgt, grads, weights=None):
    out = mf.run_model(cfg, w, idx, tgt, grads)
    tensors = {} if weights else dict(w)
    tensors.update({"batch.idx": idx.float(), "batch.targets": tgt.float()})
    tensors.update(out)
    fn = "gpt_%s.safetensors" % name
    extra = {"weights": weights} if weights else {}
    B, T = idx.shape
    safetensors_py.save(tensors, os.path.join(mf.OUT, fn), mf.meta_for(cfg, T, B, **extra))
    mf.report(fn, out)
    return fn


def batch(g, V, B, T):
    return torch.randint(0, V, (B, T), generator=g), torch.randint(0, V, (B, T), generator=g)


def fixtures():
    main = [  # name, pos, seed, options
        ("rope_frac", "rope", 401, {"rope_fraction": 0.5}),
        ("rope_heads", "rope", 402, {"rope_heads": 2}),
        ("rope_frac_heads", "rope", 403, {"rope_fraction": 0.25, "rope_heads": 3}),
        ("alibi_heads", "alibi", 404, {"alibi_heads": 3}),
        ("learned_pscale", "learned", 405, {"pos_scale": "learned"}),
        ("sinusoidal_pscale", "sinusoidal", 406, {"pos_scale": "learned"}),
        ("sinusoidal_pfixed", "sinusoidal", 407, {"pos_scale": "fixed:0.5"}),
        # item 1: dynamic position bias, the defaults, and log distance with another MLP shape
        ("dpb", "dpb", 408, {}),
        ("dpb_log", "dpb", 409, {"dpb_log_distance": True, "dpb_depth": 3, "dpb_dim": 16}),
    ]
    made = {}
    for name, pos, seed, opts in main:
        g = torch.Generator().manual_seed(seed)
        cfg = gpt_ref.GPTConfig(64, 32, 2, 4, 16, pos, **opts)
        w = mf.draw_weights(gpt_ref.GPT(cfg), g)
        idx, tgt = batch(g, 64, 3, 16)
        made[name] = (cfg, w, save(name, cfg, w, idx, tgt, True))
    # past the training length (16): 4x, as eval runs them
    longer = [  # name, base, T, B, seed, grads, scaling
        ("rope_frac_T64", "rope_frac", 64, 2, 411, False, None),
        ("rope_frac_yarn_T64", "rope_frac", 64, 2, 412, True, ("yarn", 4.0)),
        ("alibi_heads_T64", "alibi_heads", 64, 2, 413, False, None),
        ("sinusoidal_pscale_T64", "sinusoidal_pscale", 64, 2, 414, True, None),
        ("dpb_T64", "dpb", 64, 2, 415, True, None),
        ("dpb_log_T64", "dpb_log", 64, 2, 416, True, None),
    ]
    for name, base, T, B, seed, grads, scaling in longer:
        cfg, w, wfn = made[base]
        if scaling:
            cfg = gpt_ref.GPTConfig(cfg.V, cfg.C, cfg.L, cfg.NH, cfg.T_max, cfg.pos, rope_scaling=scaling[0],
                                    rope_factor=scaling[1], rope_fraction=cfg.rope_fraction)
        g = torch.Generator().manual_seed(seed)
        idx, tgt = batch(g, cfg.V, B, T)
        save(name, cfg, w, idx, tgt, grads, weights=wfn)


if __name__ == "__main__":
    fixtures()
