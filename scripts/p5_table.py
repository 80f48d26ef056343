#!/usr/bin/env python3
"""docs/experiments.md P5's table from scripts/p5_context_extension.sh's reports.

  scripts/p5_table.py OUT_DIR [SEED ...]     (seeds default to 1 2 3)

Val loss (nats per byte) at 64 and 256, mean and sample sd over the seeds, and the n-gram
levels on the same targets; standard library only."""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import experiment_tables  # noqa: E402  (its n-gram rows)

ROWS = [("rope", "none", "no change"), ("rope", "pi", "PI"), ("rope", "ntk", "NTK-aware"),
        ("rope", "yarn", "YaRN"), ("learned", "interpolate", "interpolate the table"),
        ("learned", "fresh", "fresh rows")]


def load(out, name, key="val_loss"):
    try:
        with open(os.path.join(out, name)) as f:
            r = json.load(f)
    except (OSError, ValueError):
        return None
    return {x["context"]: x.get(key) for x in r["results"]}


def cell(reports, T):
    vals = [r.get(T) for r in reports if r and r.get(T) is not None]
    if not vals:
        return "n/a"
    if len(vals) < 2:
        return "%.3f (1 seed)" % vals[0]
    return "%.3f ± %.3f" % (statistics.mean(vals), statistics.stdev(vals))


def main():
    out, seeds = sys.argv[1], [int(s) for s in sys.argv[2:]] or [1, 2, 3]
    print("| scheme | method | 0 steps: 64 | 0 steps: 256 | 200 steps: 64 | 200 steps: 256 |")
    print("|---|---|---|---|---|---|")
    for pos, m, label in ROWS:
        e0 = [load(out, "e0-%s-%s-s%d.log" % (pos, m, s)) for s in seeds]
        ft = [load(out, "ft-%s-%s-s%d.eval.log" % (pos, m, s)) for s in seeds]
        print("| %s | %s | %s | %s | %s | %s |" % (pos, label, cell(e0, 64), cell(e0, 256),
                                                   cell(ft, 64), cell(ft, 256)))
    # The n-gram levels on the same targets (the same at 0 and 200 steps), as every other table
    ng = load(out, "e0-rope-none-s%d.log" % seeds[0], "ngram_loss")
    if ng:
        experiment_tables.ngram_rows([{"ngram_loss": ng.get(T)} for T in (64, 256, 64, 256)])

if __name__ == "__main__":
    main()
