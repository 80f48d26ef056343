#!/usr/bin/env python3
"""Markdown tables for docs/experiments.md from sweep directories' eval.json files.

  scripts/experiment_tables.py accuracy SWEEP_DIR [n ...]   exact match per n (copy/reverse),
      the seeds that learned (mean exact match over the trained n >= 0.95, k/n) and each
      seed's means over the trained and the longer n
  scripts/experiment_tables.py loss SWEEP_DIR ...           val loss per evaluation length, and
      the n-gram levels on the same targets where the records hold them; several sweeps
      (of different schemes, on one protocol) make one table
  scripts/experiment_tables.py strides SWEEP_DIR            sliding windows moved by 1 against
      the default T/4, at each length of the records eval/base-sliding-stride1.json (beside
      eval/base-sliding.json's; scripts/p6_press.sh), and each seed's difference at the last length
  scripts/experiment_tables.py lm SWEEP_DIR                 loss's table with ordo compare's
      training columns before it (parameters, final train loss, best val loss and perplexity
      of the evaluations during training)
  scripts/experiment_tables.py param SWEEP_DIR TENSOR ...   a small tensor's values per seed,
      from each run's last checkpoint (e.g. wpe.scale, fire.L_multiplier)
  scripts/experiment_tables.py context-use SWEEP_DIR ...    the loss with the context cut to k
      tokens (records eval/context-use.json, made by eval --context-use; scripts/p11_language.sh),
      and the best n-gram's on the same targets where the records hold it
  scripts/experiment_tables.py lr SWEEP_DIR ...             copy/reverse, one sweep per rate:
      mean exact match over the trained lengths (n <= max-len) and past them, per rate, and
      the seeds that learned (k/n, as in accuracy)
  scripts/experiment_tables.py passkey DIR [DEPTH_LENGTH]   passkey retrieval per length (the
      mean over depths), each seed's at the training length and k/n (>= 0.5 there); with a
      length, that length's accuracy per depth instead, and each seed's mean over depths. Rows are
      the run names less -s<seed> (a sweep's schemes, or e.g. rope-pi for DIR/rope-pi-s1)
  scripts/experiment_tables.py passkey-loss DIR              passkey's answer loss at the
      training length (nats per answer token, the whole validation split), each seed's, and the
      n-gram levels on the same answer tokens
  scripts/experiment_tables.py passkey-rope P8_DIR          scripts/p8_passkey.sh's rope rows:
      each scaling with 0 fine-tune steps (P8_DIR/base, eval/<m>-x4.json) and after 200
      (P8_DIR/ft/rope-<m>-s<seed>), retrieval per length, and each seed's at 1x and 4x
  scripts/experiment_tables.py recall SWEEP_DIR ...          mqar, flipflop, selective-copy,
      count (scripts/p10_recall.sh): per scheme the seeds that learned (the run's own cell at
      its training length >= 0.95, k/n), then that cell's accuracy per length; flip-flop
      adds the sparse and dense cells at 1x, mqar the other numbers of pairs that fit at
      1x. copy, reverse, add (one example per window): the seeds that learned (mean exact
      match over the trained n >= 0.95), the means over the trained and the longer n, exact
      match at a few n, and each seed's in / out. A
      directory named <task>-<x> labels its rows "<pos> (<x>)" (t5: "max distance T",
      vaswani: "Vaswani's convention")

Mean and sample sd over the seeds of each scheme (the runs <scheme>-s<seed>), from each
run's eval.json, or with --variant NAME (before the mode) from its record eval/NAME.json
(e.g. drawn, ntk-x4); standard library only, so that it runs with any python3.
"""
import glob
import json
import os
import statistics
import sys

ORDER = ["learned", "sinusoidal", "rope", "alibi", "t5", "fire", "kerple", "kerple-power", "xpos", "dpb", "fox",
         "cope", "none"]


VARIANT = None  # --variant NAME: the records eval/NAME.json instead of eval.json


def runs(sweep, by_name=False, variant=None):
    """[(row, [record...])]: a row per scheme (by_name: per run name less -s<seed>). sweep may
    be a list of directories whose rows are told apart by scheme (a scheme in two of them is
    an error: their seeds are not one sample). variant: the record eval/<variant>.json (default
    --variant's)."""
    by, home = {}, {}
    variant = variant or VARIANT
    rec = os.path.join("eval", variant + ".json") if variant else "eval.json"
    for d in sweep if isinstance(sweep, list) else [sweep]:
        for f in sorted(glob.glob(os.path.join(d, "*-s*", rec))):
            e = json.load(open(f))
            e["_dir"] = os.path.dirname(f[: -len(rec)] + "x")
            key = os.path.basename(e["_dir"]).rsplit("-s", 1)[0] if by_name else e["pos"]
            if home.setdefault(key, d) != d:
                sys.exit("experiment_tables: '%s' has runs in both %s and %s" % (key, home[key], d))
            by.setdefault(key, []).append(e)
    rank = lambda k: (ORDER.index(k.split("-")[0]) if k.split("-")[0] in ORDER else 99, k)
    return sorted(by.items(), key=lambda kv: rank(kv[0]))


def cell(vals, fmt):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "n/a"
    m = statistics.mean(vals)
    return (fmt % m) + (" ± " + fmt % statistics.stdev(vals) if len(vals) > 1 else "")


def accuracy(sweep, ns):
    """Exact match per n, mean ± sd over seeds, with the seeds that learned (mean exact match
    over the trained n >= 0.95, k/n) and each seed's mean over the trained and longer n."""
    print("| scheme | learned (k/n) | " + " | ".join("n=%d" % n for n in ns) + " | per seed: in / out |")
    print("|---|---|" + "---|" * (len(ns) + 1))
    for pos, es in runs(sweep):
        row = []
        for n in ns:
            vals = []
            for e in es:
                hit = [b for b in e["accuracy"]["by_length"] if b["n"] == n]
                vals.append(hit[0].get("exact_match") if hit else None)
            row.append(cell(vals, "%.2f"))
        split = [split_accuracy(e) for e in es]
        print("| %s | %s | %s | %s |" % (pos, learned(split), " | ".join(row), per_seed(split)))


def learned(split):
    """"k/n": the seeds whose mean exact match over the trained n is LEARNED or more."""
    return "%d/%d" % (sum(1 for i, _ in split if i >= LEARNED), len(split))


def per_seed(split):
    """Each seed's "in / out" means, in seed order."""
    return "; ".join("%.2f / %s" % (i, "%.2f" % o if o is not None else "n/a") for i, o in split)


def loss_cells(es):
    """The val loss at each evaluation length, mean ± sd over the runs es."""
    return [cell([e["results"][k].get("val_loss") for e in es], "%.3f") for k in range(len(es[0]["results"]))]


def some_runs(sweep, variant=None, by_name=False):
    """runs(sweep, ...), or a clear exit when the sweep holds no such record."""
    rows = runs(sweep, by_name, variant)
    if not rows:
        variant = variant or VARIANT
        rec = "eval/%s.json" % variant if variant else "eval.json"
        sys.exit("experiment_tables: no run under %s has %s" % (" ".join(sweep if isinstance(sweep, list) else [sweep]), rec))
    return rows


def loss(sweep):
    rows = some_runs(sweep)
    ctxs = [r["context"] for r in rows[0][1][0]["results"]]
    print("| scheme | seeds | " + " | ".join(str(c) for c in ctxs) + " |")
    print("|---|---|" + "---|" * len(ctxs))
    for pos, es in rows:
        label = pos + tag_of(os.path.dirname(es[0]["_dir"]))  # e.g. "sinusoidal (Vaswani's convention)"
        print("| %s | %d | %s |" % (label, len(es), " | ".join(loss_cells(es))))
    ngram_rows(es[0]["results"])


def strides(sweep):
    """Stride 1 (Press et al.'s: every target has T - 1 tokens of context) beside the default
    T/4 at each length the stride-1 records hold, mean ± sd over seeds, and each seed's
    difference (stride 1 minus T/4) at the last of those lengths."""
    one = some_runs(sweep, "base-sliding-stride1")
    quarter = {e["_dir"]: e for _, es in runs(sweep, variant="base-sliding") for e in es}
    ctxs = [r["context"] for r in one[0][1][0]["results"]]

    def at(e, c):
        hit = [r for r in e["results"] if r["context"] == c]
        if not hit:
            sys.exit("experiment_tables: %s has no %d in eval/base-sliding.json" % (e["_dir"], c))
        return hit[0]

    some = one[0][1][0]
    strides_q = [at(quarter[some["_dir"]], c)["stride"] for c in ctxs]
    print("| scheme | seeds | " + " | ".join("%d, stride 1 | %d, stride %d" % (c, c, q) for c, q in zip(ctxs, strides_q))
          + " | per seed at %d: stride 1 minus %d |" % (ctxs[-1], strides_q[-1]))
    print("|---|---|" + "---|---|" * len(ctxs) + "---|")
    for pos, es in one:
        if any(e["_dir"] not in quarter for e in es):
            sys.exit("experiment_tables: a run of %s has eval/base-sliding-stride1.json but no base-sliding.json" % pos)
        a = [[at(e, c)["val_loss"] for e in es] for c in ctxs]
        b = [[at(quarter[e["_dir"]], c)["val_loss"] for e in es] for c in ctxs]
        cols = [cell(v, "%.3f") for k in range(len(ctxs)) for v in (a[k], b[k])]
        diffs = ["%+.3f" % (x - y) for x, y in zip(a[-1], b[-1])]
        print("| %s | %d | %s | %s |" % (pos, len(es), " | ".join(cols), " / ".join(diffs)))
    ngram_rows([r for c in ctxs for r in (at(some, c), at(quarter[some["_dir"]], c))], tail=1)


def lm(sweep):
    """loss's table with training's columns before it, as ordo compare shows them: the
    parameter count, the final train loss, the best val loss of the evaluations during training
    (--eval-batches of the validation split) and its perplexity, from each run's metrics.jsonl."""
    rows = some_runs(sweep)
    ctxs = [r["context"] for r in rows[0][1][0]["results"]]
    print("| scheme | seeds | params | final train loss | best val | val ppl | "
          + " | ".join("eval at %d" % c if i == 0 else str(c) for i, c in enumerate(ctxs)) + " |")
    print("|---|---|---|---|---|---|" + "---|" * len(ctxs))
    for pos, es in rows:
        train, val, ppl = [], [], []
        for e in es:
            rows = [json.loads(l) for l in open(os.path.join(e["_dir"], "metrics.jsonl")) if l.strip()]
            train.append([r["train_loss"] for r in rows if "train_loss" in r][-1])
            best = min((r for r in rows if "val_loss" in r), key=lambda r: r["val_loss"])
            val.append(best["val_loss"])
            ppl.append(best["val_ppl"])
        params = {e["parameters"] for e in es}
        print("| %s | %d | %s | %s | %s | %s | %s |" % (
            pos, len(es), "/".join("{:,}".format(p) for p in sorted(params)), cell(train, "%.3f"),
            cell(val, "%.3f"), cell(ppl, "%.1f"), " | ".join(loss_cells(es))))
    ngram_rows(es[0]["results"], 4)


def param(sweep, names):
    """Each named tensor of few values (a learned scale, FIRE's threshold) per seed, read from
    each run's last checkpoint (eval.json's checkpoint): a row per scheme that has them."""
    import struct

    def tensors(e):
        with open(os.path.join(e["_dir"], os.path.basename(e["checkpoint"])), "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            head, base = json.loads(f.read(n)), 8 + n
            out = []
            for name in names:
                t = head.get(name)
                if t is None:  # a scheme without the tensor has no row
                    return None
                if t["dtype"] != "F32":
                    sys.exit("experiment_tables: %s: '%s' is %s, expected F32" % (f.name, name, t["dtype"]))
                a, b = t["data_offsets"]
                f.seek(base + a)
                out.append(struct.unpack("<%df" % ((b - a) // 4), f.read(b - a)))
            return out

    print("| scheme | " + " | ".join("`%s`, per seed" % n for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for pos, es in runs(sweep):
        vals = [tensors(e) for e in es]
        if None in vals:
            continue
        cols = ["; ".join(",".join("%.3f" % x for x in v[i]) for v in vals) for i in range(len(names))]
        print("| %s | %s |" % (pos, " | ".join(cols)))


def ngram_rows(results, skip=0, tail=0):
    """The n-gram levels a record holds (orders 1-6, scored on the same targets; docs/guide.md,
    "Baselines"): rows for the 2-, 3- and 4-gram and the best order, in italics, after skip
    empty columns and before tail."""
    levels = [r.get("ngram_loss") for r in results]
    if not all(levels):
        return
    for n in (2, 3, 4):
        print("| *n-gram: %d-gram* | - |%s %s |%s" % (n, " - |" * skip, " | ".join("%.3f" % v[n - 1] for v in levels), " - |" * tail))
    best = [min(range(len(v)), key=lambda i: v[i]) for v in levels]
    names = {b + 1 for b in best}
    label = "best (%s)" % ", ".join("%d-gram" % n for n in sorted(names))
    print("| *n-gram: %s* | - |%s %s |%s" % (label, " - |" * skip, " | ".join("%.3f" % min(v) for v in levels), " - |" * tail))


def context_use(sweeps):
    """The context-use curve (Khandelwal et al. 2018) of the records eval/context-use.json:
    per scheme the loss with the context cut to k tokens, mean ± sd over seeds."""
    global VARIANT
    VARIANT = VARIANT or "context-use"
    rows = [(tag_of(s), pos, es) for s in sweeps for pos, es in runs(s)]
    if not rows:
        sys.exit("no eval/%s.json under %s" % (VARIANT, " ".join(sweeps)))
    ks = rows[0][2][0]["context_use"]["k"]
    print("| scheme | seeds | " + " | ".join("k=%d" % k for k in ks) + " |")
    print("|---|---|" + "---|" * len(ks))
    for tag, pos, es in rows:
        name = pos + tag
        cells = [cell([e["context_use"]["loss"][i] for e in es], "%.3f") for i in range(len(ks))]
        print("| %s | %d | %s |" % (name, len(es), " | ".join(cells)))
    # the n-gram line of the records that have one (older records do not), printed when they
    # all agree: the same split, targets and ks
    lines = {tuple(e["context_use"]["ngram_loss"]) for _, _, es in rows for e in es
             if e["context_use"].get("ngram_loss") and e["context_use"]["k"] == ks}
    if len(lines) == 1:
        e = next(e for _, _, es in rows for e in es
                 if e["context_use"].get("ngram_loss") and e["context_use"]["k"] == ks)
        orders = e["context_use"]["ngram_order"]
        label = "best n-gram with k tokens of context, same targets (orders %s)" % ", ".join(map(str, orders))
        print("| *%s* | - | %s |" % (label, " | ".join("%.3f" % v for v in lines.pop())))
    elif lines:
        print("(the records' n-gram lines differ: not on one split; none printed)", file=sys.stderr)
    if any(e["context_use"]["k"] != ks for _, _, es in rows for e in es):
        print("(some records have other ks than the first: their n-gram lines are not compared)",
              file=sys.stderr)


def split_accuracy(e):
    """The mean exact match over the trained n (up to the record's train_max_len) and over
    the longer n, never seen; lengths a scheme cannot score (past a learned table: null) are
    left out."""
    max_len = e["accuracy"]["train_max_len"]
    by = [b for b in e["accuracy"]["by_length"] if b.get("exact_match") is not None]
    ind = [b["exact_match"] for b in by if b["n"] <= max_len]
    ood = [b["exact_match"] for b in by if b["n"] > max_len]
    return statistics.mean(ind), (statistics.mean(ood) if ood else None)


def lr(sweeps):
    cols, table = [], {}
    for sweep in sweeps:
        for pos, es in runs(sweep):
            for e in es:
                cfg = json.load(open(os.path.join(e["_dir"], "config.json")))
                rate = cfg["lr"]
                if rate not in cols:
                    cols.append(rate)
                table.setdefault(pos, {}).setdefault(rate, []).append(split_accuracy(e))
    cols.sort()
    print("| scheme | " + " | ".join("lr %g: in / out, learned" % r for r in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for pos in sorted(table, key=lambda p: ORDER.index(p) if p in ORDER else 99):
        row = []
        for r in cols:
            v = table[pos].get(r, [])
            row.append("%s / %s, %s" % (cell([a for a, _ in v], "%.2f"),
                                        cell([b for _, b in v], "%.2f"), learned(v)))
        print("| %s | %s |" % (pos, " | ".join(row)))


PASSKEY_LEARNED = 0.5  # a seed "learned" passkey retrieval: exact match >= this at its training length


def passkey(sweep, at=None):
    """Exact match of the key per length (mean over depths), with each seed's value at the
    training length and the seeds that learned (k/n); or per depth at length `at`, with each
    seed's mean over the depths there. A length a run cannot score (past a learned table) is
    n/a."""
    rows = some_runs(sweep, by_name=True)
    acc0 = rows[0][1][0]["accuracy"]
    if at is None:
        cols = [b["length"] for b in acc0["by_length"]]
        head = [str(c) for c in cols]
        tail = ["per seed at %s" % head[0], "seeds that learned (>= %g at %s)" % (PASSKEY_LEARNED, head[0])]
    else:
        cols = acc0["depths"]
        head = ["depth %g" % d for d in cols]
        tail = ["per seed (mean over depths)"]
    print("| run | seeds | " + " | ".join(head + tail) + " |")
    print("|---|---|" + "---|" * (len(cols) + len(tail)))
    for name, es in rows:
        bys = [{b["length"]: b for b in e["accuracy"]["by_length"]} for e in es]  # per run
        row = []
        for k, c in enumerate(cols):
            if at is None:
                vals = [by[c].get("exact_match") if c in by else None for by in bys]
            else:
                vals = [by[at]["by_depth"][k] if at in by and by[at]["by_depth"] else None for by in bys]
            row.append(cell(vals, "%.2f"))
        first = [by.get(cols[0] if at is None else at) for by in bys]
        seed = [b.get("exact_match") if b else None for b in first]
        row.append(" / ".join("%.2f" % v if v is not None else "n/a" for v in seed))
        if at is None:
            row.append("%d/%d" % (sum(1 for v in seed if v is not None and v >= PASSKEY_LEARNED), len(seed)))
        print("| %s | %d | %s |" % (name, len(es), " | ".join(row)))


def passkey_loss(sweep):
    """The answer loss at the training length (the records' first length) per run name, mean ±
    sd and each seed's: it tells a seed that learned part of the answer from one that did not."""
    rows = some_runs(sweep, by_name=True)
    first = rows[0][1][0]["results"][0]
    print("| run | seeds | answer loss at %d | per seed |" % first["context"])
    print("|---|---|---|---|")
    for name, es in rows:
        vals = [e["results"][0]["val_loss"] for e in es]
        print("| %s | %d | %s | %s |" % (name, len(es), cell(vals, "%.3f"), " / ".join("%.3f" % v for v in vals)))
    ngram_rows([first], tail=1)


def passkey_rope(p8):
    """rope's retrieval per length under each scaling, 0 and 200 fine-tune steps, with each
    seed's value at the first length and at 4x it (the scaled window, the fine-tune's length)."""
    methods = [("no change", "base", "none"), ("PI", "pi-x4", "pi"), ("NTK-aware", "ntk-x4", "ntk"),
               ("YaRN", "yarn-x4", "yarn")]
    rows = [("0 steps", m, os.path.join(p8, "base", "rope-s*", "eval", v + ".json"))
            for m, v, _ in methods]
    rows += [("200 steps at 4x", m, os.path.join(p8, "ft", "rope-%s-s*" % f, "eval", "base.json"))
             for m, _, f in methods]
    first = True
    for when, name, pattern in rows:
        es = [json.load(open(f)) for f in sorted(glob.glob(pattern))]
        if not es:
            continue
        lens = [b["length"] for b in es[0]["accuracy"]["by_length"]]
        seen = [0] + ([lens.index(4 * lens[0])] if 4 * lens[0] in lens else [])  # 1x, and 4x if scored
        if first:
            print("| rope | method | seeds | " + " | ".join(str(n) for n in lens) + " | "
                  + " | ".join("per seed at %d" % lens[k] for k in seen) + " |")
            print("|---|---|---|" + "---|" * (len(lens) + len(seen)))
            first = False
        cells = [cell([e["accuracy"]["by_length"][k]["exact_match"] for e in es], "%.2f")
                 for k in range(len(lens))]
        cells += [" / ".join("%.2f" % e["accuracy"]["by_length"][k]["exact_match"] for e in es) for k in seen]
        print("| %s | %s | %d | %s |" % (when, name, len(es), " | ".join(cells)))


COLS = {"mqar": ("pairs", "by_pairs", "train_pairs"), "flipflop": ("p_ignore", "by_p_ignore", "train_p_ignore"),
        "selective-copy": ("tokens", "by_tokens", "train_tokens"), "count": ("vars", "by_vars", "train_vars")}
LEARNED = 0.95
SEQ = ("copy", "reverse", "add")  # exact match by n, one example per window (Kazemnejad et al.)
TAGS = {"t5": "max distance T", "vaswani": "Vaswani's convention", "foxbias": "gate bias 5",
        "random": "positions drawn from [0, 128)"}


def tag_of(sweep):
    """" (<label>)" for a sweep directory named <prefix>-<x> (p10/copy-t5, p11/bytes-64-vaswani),
    the label TAGS gives x; "" for a directory without a known suffix."""
    base = os.path.basename(os.path.normpath(sweep))
    for x, label in TAGS.items():
        if base.endswith("-" + x):
            return " (%s)" % label
    for t in list(COLS) + list(SEQ):  # a task's sweep with another suffix: the suffix itself
        if base.startswith(t + "-"):
            return " (%s)" % base[len(t) + 1:]
    return ""


def recall(sweeps):
    rows, lens = [], None
    for sweep in sweeps:
        tag = tag_of(sweep)
        for pos, es in runs(sweep):
            rows.append((pos + tag, es))
    if not rows:
        sys.exit("no eval.json under " + " ".join(sweeps))
    a0 = rows[0][1][0]["accuracy"]
    if a0["task"] in SEQ:
        return recall_seq(rows, a0)
    cols, by, own = COLS[a0["task"]]
    j = a0[cols].index(a0[own])
    lens = [b["length"] for b in a0["by_length"]]
    T = a0["train_context"]
    # flipflop: the other test sets at 1x; mqar: the other numbers of pairs that fit at 1x
    extra = [(k, c) for k, c in enumerate(a0[cols]) if k != j and
             (a0["task"] == "flipflop" or
              (a0["task"] == "mqar" and a0["by_length"][0][by][k] is not None))]
    label = lambda c: (" | 1x, %g pair%s" % (c, "s" * (c != 1)) if a0["task"] == "mqar"
                       else " | 1x, p_i %g" % c)
    head = ["%dx" % (n // T) if n % T == 0 else str(n) for n in lens]
    print("| scheme | learned (k/n) | " + " | ".join(head) +
          "".join(label(c) for _, c in extra) + " | per seed at 1x |")
    print("|---|---|" + "---|" * (len(lens) + len(extra) + 1))
    for name, es in rows:
        def at(e, n, k):
            b = [r for r in e["accuracy"]["by_length"] if r["length"] == n]
            return b[0][by][k] if b and b[0].get(by) else None
        first = [at(e, lens[0], j) for e in es]
        k = sum(1 for v in first if v is not None and v >= LEARNED)
        cells = [cell([at(e, n, j) for e in es], "%.2f") for n in lens]
        cells += [cell([at(e, lens[0], c) for e in es], "%.2f") for c, _ in extra]
        seeds = " / ".join("%.2f" % v if v is not None else "n/a" for v in first)
        print("| %s | %d/%d | %s | %s |" % (name, k, len(es), " | ".join(cells), seeds))


def recall_seq(rows, a0):
    """copy/reverse/add: per scheme the seeds that learned (mean exact match over the trained
    n >= 0.95, k/n), the means over the trained n and over the longer ones, exact match at a
    few n, and each seed's in / out; n a scheme cannot score (past a learned table) left out."""
    top = a0["train_max_len"]
    ns = sorted({b["n"] for b in a0["by_length"]})
    show = [n for n in ns if n in (top // 2, top, top + 1) or (n > top and n % (top // 4 or 1) == 0)]
    print("| scheme | learned (k/n) | n <= %d | n > %d | " % (top, top) +
          " | ".join("n=%d" % n for n in show) + " | per seed: in / out |")
    print("|---|---|---|---|" + "---|" * (len(show) + 1))
    for name, es in rows:
        split = [split_accuracy(e) for e in es]
        def at(e, n):
            b = [r for r in e["accuracy"]["by_length"] if r["n"] == n]
            return b[0].get("exact_match") if b else None
        cells = [cell([i for i, _ in split], "%.2f"), cell([o for _, o in split], "%.2f")]
        cells += [cell([at(e, n) for e in es], "%.2f") for n in show]
        print("| %s | %s | %s | %s |" % (name, learned(split), " | ".join(cells), per_seed(split)))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--variant":
        VARIANT = sys.argv[2]
        del sys.argv[1:3]
    modes = ("accuracy", "loss", "lm", "param", "lr", "passkey", "passkey-loss", "passkey-rope", "recall",
             "context-use", "strides")
    if len(sys.argv) < 3 or sys.argv[1] not in modes:
        sys.exit(__doc__)
    if sys.argv[1] == "context-use":
        context_use(sys.argv[2:])
        sys.exit(0)
    if sys.argv[1] == "recall":
        recall(sys.argv[2:])
        sys.exit(0)
    if sys.argv[1] == "lr":
        lr(sys.argv[2:])
        sys.exit(0)
    if sys.argv[1] == "passkey-loss":
        passkey_loss(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "passkey-rope":
        passkey_rope(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "passkey":
        passkey(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else None)
        sys.exit(0)
    if sys.argv[1] == "param":
        param(sys.argv[2], sys.argv[3:])
        sys.exit(0)
    if sys.argv[1] == "strides":
        strides(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "lm":
        lm(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "accuracy":
        ns = [int(a) for a in sys.argv[3:]] or [1, 4, 8, 12, 16, 17, 18, 20, 24, 32]
        accuracy(sys.argv[2], ns)
    else:
        loss(sys.argv[2:] if len(sys.argv) > 3 else sys.argv[2])
