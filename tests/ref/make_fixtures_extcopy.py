#!/usr/bin/python3
"""Fixtures of --extend-pos (a learned table grown to a longer context: ordo train --init RUN
--context T, ordo eval --extend-pos), called by make_fixtures.py (run that one; this file alone
rewrites only its own files). Same layout as the other gpt_* files; a grown case names the
weights of the shorter model ("weights") and the method ("extend_pos"), and ordo grows the
table the way train --init does (ordo_init_fit) before its forward:

  gpt_learned_ext16.safetensors              learned, a table of 16 rows, T 16, with grads
  gpt_learned_ext16_copy_T40.safetensors     its table grown to 40 by copy (row t = row t mod 16,
                                             Longformer's init, Beltagy et al. 2020), T 40,
                                             with grads (of the 40-row table)
  gpt_learned_ext16_interp_T40.safetensors   grown to 40 by interpolate (F.interpolate, linear,
                                             align_corners=True), T 40, with grads

40 is not a multiple of 16, so the last copy is a partial one (rows 32..39 = rows 0..7).
"""

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpt_ref  # noqa: E402
import make_fixtures as mf  # noqa: E402
import make_fixtures_posopts as po  # noqa: E402
import safetensors_py  # noqa: E402


def grown(name, base_fn, cfg0, w, how, T, g):
    cfg = gpt_ref.GPTConfig(cfg0.V, cfg0.C, cfg0.L, cfg0.NH, T, "learned")
    wg = dict(w)
    wg["wpe.weight"] = gpt_ref.extend_table(w["wpe.weight"], T, how)
    idx, tgt = po.batch(g, cfg.V, 2, T)
    out = mf.run_model(cfg, wg, idx, tgt, True)
    tensors = {"batch.idx": idx.float(), "batch.targets": tgt.float()}
    tensors.update(out)
    fn = "gpt_%s.safetensors" % name
    meta = mf.meta_for(cfg, T, 2, weights=base_fn, extend_pos=how)
    safetensors_py.save(tensors, os.path.join(mf.OUT, fn), meta)
    mf.report(fn, out)


def fixtures():
    g = torch.Generator().manual_seed(641)
    cfg = gpt_ref.GPTConfig(64, 32, 2, 4, 16, "learned")
    w = mf.draw_weights(gpt_ref.GPT(cfg), g)
    fn = po.save("learned_ext16", cfg, w, *po.batch(g, cfg.V, 3, 16), True)
    grown("learned_ext16_copy_T40", fn, cfg, w, "copy", 40, g)
    grown("learned_ext16_interp_T40", fn, cfg, w, "interpolate", 40, g)


if __name__ == "__main__":
    fixtures()
