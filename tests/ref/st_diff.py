#!/usr/bin/python3
"""Compare the weights of two safetensors files (ordo checkpoints): for every tensor of A
that is not an optimizer moment, max|a - b| / max|b|, the tensors' worst. Exit 1 when a
tensor is missing from B, has another shape, or the worst error exceeds --tol (default 0:
bitwise equal values).

    st_diff.py A B [--tol 1e-5]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_py  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--tol", type=float, default=0.0)
    args = ap.parse_args()
    a, b = safetensors_py.load(args.a), safetensors_py.load(args.b)
    worst, worst_name = 0.0, ""
    for name, x in a.items():
        if name.startswith("optim."):
            continue
        if name not in b or b[name].shape != x.shape:
            print("st_diff: %s is missing from %s or has another shape" % (name, args.b))
            return 1
        y = b[name].astype(np.float64)
        e = float(np.abs(x.astype(np.float64) - y).max() / max(float(np.abs(y).max()), 1e-30))
        if e > worst or not worst_name:
            worst, worst_name = e, name
    print("st_diff: worst %.3g (%s)" % (worst, worst_name))
    return 0 if worst <= args.tol else 1


if __name__ == "__main__":
    sys.exit(main())
