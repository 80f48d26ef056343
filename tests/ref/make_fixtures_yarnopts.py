#!/usr/bin/python3
"""Fixtures of YaRN's options --yarn-alpha, --yarn-beta and --yarn-no-temperature, called by
make_fixtures.py (run that one; this file alone rewrites only its own files). Same layout as the
other gpt_* files, the options in the metadata as ordo writes them (yarn_alpha, yarn_beta,
yarn_temperature, each only when not the paper's 1, 32 and on):

  gpt_rope_yarn_ramp.safetensors    head size 8, yarn x2.5 with original context 256, alpha
                                    0.25 and beta 4 (ramp over pairs 1..3, where the paper's
                                    1 and 32 give 0..2), at T 24, with grads
  gpt_rope_yarn_notemp.safetensors  yarn x4 over the trained 16 without the temperature
                                    (q, k not scaled), at T 64, with grads
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
    g = torch.Generator().manual_seed(631)
    ramp = gpt_ref.GPTConfig(64, 32, 2, 4, 16, "rope", rope_scaling="yarn", rope_factor=2.5, rope_orig=256,
                             yarn_alpha=0.25, yarn_beta=4.0)
    w = mf.draw_weights(gpt_ref.GPT(ramp), g)
    fn = po.save("rope_yarn_ramp", ramp, w, *po.batch(g, ramp.V, 2, 24), True)
    notemp = gpt_ref.GPTConfig(64, 32, 2, 4, 16, "rope", rope_scaling="yarn", rope_factor=4.0,
                               yarn_temperature=False)
    po.save("rope_yarn_notemp", notemp, w, *po.batch(g, ramp.V, 2, 64), True, weights=fn)


if __name__ == "__main__":
    fixtures()
