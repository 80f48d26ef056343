#!/usr/bin/env bash
# The measurement behind docs/claims.md C5 (and the order task rows of C1 and C2): the
# README demo's `order` task ("cat chased dog . dog bit fox . fox ran ."), where word order
# decides the next noun, the six classic schemes, 5 seeds each (SEEDS to change it).
# The demo's budget and shape (1 layer, T 32, 1200 steps), under the demo's convention
# (Vaswani: x8, std 0.125) and under GPT-2's (x1, std 0.02); docs/experiments.md's `order`
# table is this output too. 60 runs of about 8 s of one core each; JOBS (default 1) at a time,
# one thread each.
# Usage: scripts/claims_order.sh [ORDO] [OUT_DIR]   (defaults: build/ordo, runs/claims-order)
# Prints the tables of docs/claims.md (mean ± sample sd over the seeds, from each run's
# eval.json; "learned (k/n)": the seeds whose order-dependent loss is below ln 2, the best a
# model blind to order can do); scripts/claims_order.out is its output as committed.
set -euo pipefail
cd "$(dirname "$0")/.."
ordo=${1:-build/ordo}
# --attention fused: the docs' runs were trained and scored on the fused path (the default
# then); auto would run T <= 64 materialized, and a checkpoint's bits depend on the path
out=${2:-runs/claims-order}
mkdir -p "$out"
common=(--task order --seeds "${SEEDS:-5}" --steps 1200 --lr 3e-3 --warmup 40 --context 32 --batch 32
        --d-model 64 --layers 1 --heads 4 --eval-every 200 --ckpt-every 600 --jobs "${JOBS:-1}" --threads 1)
"$ordo" sweep --attention fused --pos learned,sinusoidal,rope,alibi,t5,none --embed-style vaswani "${common[@]}" \
  --out "$out/vaswani" > "$out.vaswani.log" 2>&1 || { tail -n 20 "$out.vaswani.log"; exit 1; }
"$ordo" sweep --attention fused --pos learned,sinusoidal,rope,alibi,t5,none --embed-style gpt2 "${common[@]}" \
  --out "$out/gpt2" > "$out.gpt2.log" 2>&1 || { tail -n 20 "$out.gpt2.log"; exit 1; }
python3 - "$out" <<'PY'
import glob, json, math, os, re, statistics, sys
order = ["learned", "sinusoidal", "rope", "alibi", "t5", "none"]
def cell(v, f="%.4f"):
    v = [x for x in v if x is not None]
    if not v: return "n/a"
    return f % statistics.mean(v) + (" ± " + f % statistics.stdev(v) if len(v) > 1 else "")
for conv in ["vaswani", "gpt2"]:
    by = {}
    for f in sorted(glob.glob(os.path.join(sys.argv[1], conv, "*-s*", "eval.json"))):
        e = json.load(open(f))
        e["seed"] = int(re.search(r"-s(\d+)$", os.path.dirname(f)).group(1))
        e["at"] = {r["context"] // e["train_context"]: r for r in e["results"]}
        by.setdefault(e["pos"], []).append(e)
    print("\n%s convention (step %s)" % (conv, sorted({e["step"] for es in by.values() for e in es})))
    print("| scheme | seeds | learned (k/n) | val loss at T = 32 | order-dependent tokens | per seed | val loss at 2x / 4x / 8x T |")
    print("|---|---|---|---|---|---|---|")
    for p in sorted(by, key=order.index):
        es = sorted(by[p], key=lambda e: e["seed"])
        def at(e, k, key="val_loss"):
            return e["at"][k].get(key) if k in e["at"] else None
        k = sum(1 for e in es if at(e, 1, "order_loss") < math.log(2))
        print("| %s | %s | %d/%d | %s | %s | %s | %s |" % (p, ",".join(str(e["seed"]) for e in es),
              k, len(es), cell([at(e, 1) for e in es]), cell([at(e, 1, "order_loss") for e in es]),
              " / ".join("%.3f" % at(e, 1, "order_loss") for e in es),
              " / ".join(cell([at(e, k) for e in es], "%.2f") for k in (2, 4, 8))))
    # The n-gram levels on the same targets (ordo baseline's, in every eval record); the
    # order-dependent tokens alone are not scored for them
    e = next(iter(by.values()))[0]
    ng = [e["at"][k].get("ngram_loss") for k in (1, 2, 4, 8)]
    if all(ng):
        best = sorted({min(range(len(v)), key=v.__getitem__) + 1 for v in ng})
        for n, label in [(2, "2-gram"), (3, "3-gram"), (4, "4-gram"), (0, "best (%s)" % ", ".join("%d-gram" % b for b in best))]:
            v = [x[n - 1] if n else min(x) for x in ng]
            print("| *n-gram: %s* | - | - | %.4f | not scored | - | %s |" % (label, v[0], " / ".join("%.2f" % x for x in v[1:])))
PY
