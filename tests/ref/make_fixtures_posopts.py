#!/usr/bin/python3
"""Fixtures of the position options, called by make_fixtures.py (run
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
  gpt_learned_rand.safetensors      --pos-random 64: a table of 64 rows, each of the 3
                                    sequences at its own sorted subset of 16 positions of
                                    [0, 64) (batch.pos [B, T], float ids), as training draws
  gpt_sinusoidal_rand.safetensors   the sinusoids at such positions
  gpt_rope_rand.safetensors         rope's angles at such positions
  gpt_learned_rand_T64.safetensors  the learned_rand weights at 0..63 (eval at N), logits
  gpt_dpb.safetensors               dynamic position bias, dim 32, depth 2, raw distance
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


def save(name, cfg, w, idx, tgt, grads, weights=None, positions=None):
    out = mf.run_model(cfg, w, idx, tgt, grads, positions)
    tensors = {} if weights else dict(w)
    tensors.update({"batch.idx": idx.float(), "batch.targets": tgt.float()})
    if positions is not None:
        tensors["batch.pos"] = positions.float()
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
        # dynamic position bias, the defaults, and log distance with another MLP shape
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


def random_positions(g, B, T, N):
    """[B, T]: per sequence a uniform T-subset of [0, N), sorted (Ruoss et al. 2023)."""
    return torch.stack([torch.randperm(N, generator=g)[:T].sort().values for _ in range(B)])


def random_fixtures():
    made = {}
    for name, pos, seed in (("learned_rand", "learned", 421), ("sinusoidal_rand", "sinusoidal", 422),
                            ("rope_rand", "rope", 423)):
        g = torch.Generator().manual_seed(seed)
        cfg = gpt_ref.GPTConfig(64, 32, 2, 4, 64 if pos == "learned" else 16, pos, pos_random=64)
        w = mf.draw_weights(gpt_ref.GPT(cfg), g)
        idx, tgt = batch(g, 64, 3, 16)
        made[name] = (cfg, w, save(name, cfg, w, idx, tgt, True, positions=random_positions(g, 3, 16, 64)))
    cfg, w, wfn = made["learned_rand"]
    g = torch.Generator().manual_seed(424)
    idx, tgt = batch(g, 64, 2, 64)
    save("learned_rand_T64", cfg, w, idx, tgt, False, weights=wfn)


def main():
    fixtures()
    random_fixtures()


if __name__ == "__main__":
    main()
