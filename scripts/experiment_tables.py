#!/usr/bin/env python3
"""Markdown tables for docs/experiments.md from sweep directories' eval.json files.

  scripts/experiment_tables.py accuracy SWEEP_DIR [n ...]   exact match per n (copy/reverse)
  scripts/experiment_tables.py loss SWEEP_DIR               val loss per evaluation length

Mean and sample sd over the seeds of each scheme (the runs <scheme>-s<seed>); standard
library only, so that it runs with any python3.
"""
import glob
import json
import os
import statistics
import sys

ORDER = ["learned", "sinusoidal", "rope", "alibi", "t5", "fire", "kerple", "kerple-power", "xpos", "none"]


def runs(sweep):
    by = {}
    for f in sorted(glob.glob(os.path.join(sweep, "*-s*", "eval.json"))):
        e = json.load(open(f))
        by.setdefault(e["pos"], []).append(e)
    return sorted(by.items(), key=lambda kv: ORDER.index(kv[0]) if kv[0] in ORDER else 99)


def cell(vals, fmt):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "n/a"
    m = statistics.mean(vals)
    return (fmt % m) + (" ± " + fmt % statistics.stdev(vals) if len(vals) > 1 else "")


def accuracy(sweep, ns):
    print("| scheme | seeds | " + " | ".join("n=%d" % n for n in ns) + " |")
    print("|---|---|" + "---|" * len(ns))
    for pos, es in runs(sweep):
        row = []
        for n in ns:
            vals = []
            for e in es:
                hit = [b for b in e["accuracy"]["by_length"] if b["n"] == n]
                vals.append(hit[0].get("exact_match") if hit else None)
            row.append(cell(vals, "%.2f"))
        print("| %s | %d | %s |" % (pos, len(es), " | ".join(row)))


def loss(sweep):
    _, es = runs(sweep)[0]
    ctxs = [r["context"] for r in es[0]["results"]]
    print("| scheme | seeds | " + " | ".join(str(c) for c in ctxs) + " |")
    print("|---|---|" + "---|" * len(ctxs))
    for pos, es in runs(sweep):
        row = []
        for k in range(len(ctxs)):
            row.append(cell([e["results"][k].get("val_loss") for e in es], "%.3f"))
        print("| %s | %d | %s |" % (pos, len(es), " | ".join(row)))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("accuracy", "loss"):
        sys.exit(__doc__)
    if sys.argv[1] == "accuracy":
        ns = [int(a) for a in sys.argv[3:]] or [1, 4, 8, 12, 16, 17, 18, 20, 24, 32]
        accuracy(sys.argv[2], ns)
    else:
        loss(sys.argv[2])
