#!/usr/bin/env python3
"""Summarises bench/run.sh's results.jsonl: per config, the median ms/step over every timed
step of every round of a side, tokens/s, MFU against the best 2048^3 sgemm of the run, the
largest peak RSS, and the ratios ordo/PyTorch; then the position schemes on `small`; then the
issue 7 targets, each met or not. usage: bench/report.py results.jsonl"""
import json
import statistics
import sys

TARGETS = {"tiny": 1.5, "small": 1.25, "byte-small": 1.5}  # tokens/s ratio ordo/torch


def main(path):
    rows = [json.loads(l) for l in open(path) if l.strip()]
    peak = max(r["gflops"] for r in rows if r["impl"] == "sgemm")
    threads = next(r["threads"] for r in rows if r["impl"] == "sgemm")
    load = next((r["loadavg"] for r in rows if r["impl"] == "load"), "?")

    def summary(sel):
        steps = [ms for r in sel for ms in r["steps_ms"]]
        med = statistics.median(steps)
        tokens = round(sel[0]["tokens_per_s"] * sel[0]["ms"] / 1e3)  # B*T
        cpu = statistics.median(r["cpu_ms"] for r in sel)  # medians of the runs
        return dict(ms=med, cpu=cpu, tps=tokens / (med / 1e3),
                    mfu=sel[0]["gflop"] / (med / 1e3) / peak,
                    rss=max(r["rss_mb"] for r in sel), n=len(steps),
                    loss=(sel[0]["loss_first"], sel[0]["loss_last"]))

    print(f"threads {threads}, sgemm peak {peak:.1f} GFLOP/s (2048^3, best of the run), "
          f"load average at the end {load}\n")
    print("| config | side | ms/step | CPU ms/step | tokens/s | MFU | peak RSS MB | steps | loss first/last |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios = {}
    configs = list(dict.fromkeys(r["config"] for r in rows if r.get("section") == "vs"))
    for c in configs:
        s = {}
        for side in ("ordo", "torch"):
            sel = [r for r in rows if r.get("section") == "vs" and r["config"] == c and r["impl"] == side]
            if not sel:
                continue
            s[side] = summary(sel)
            x = s[side]
            print(f"| {c} | {side} | {x['ms']:.1f} | {x['cpu']:.1f} | {x['tps']:.0f} | {x['mfu']:.2f} | {x['rss']:.0f} "
                  f"| {x['n']} | {x['loss'][0]:.3f} / {x['loss'][1]:.3f} |")
        if len(s) == 2:
            ratios[c] = (s["ordo"]["tps"] / s["torch"]["tps"], s["ordo"]["rss"] / s["torch"]["rss"],
                         s["ordo"]["mfu"], s["torch"]["cpu"] / s["ordo"]["cpu"])
    print("\n| config | tokens/s ordo/PyTorch | by CPU time | peak RSS ordo/PyTorch | ordo MFU |")
    print("|---|---|---|---|---|")
    for c, (t, m, u, pc) in ratios.items():
        print(f"| {c} | {t:.2f}x | {pc:.2f}x | {m:.2f} | {u:.2f} |")
    print("\n(by CPU time: PyTorch's CPU ms/step over ordo's, all threads; steadier than wall time\n"
          "when other processes share the cores, but blind to idle waiting)")

    pos = [r for r in rows if r.get("section") == "pos"]
    if pos:
        print("\nposition schemes on small (ordo):\n")
        print("| pos | ms/step | tokens/s | vs learned | peak RSS MB |")
        print("|---|---|---|---|---|")
        learned = next((summary([r])["ms"] for r in pos if r["pos"] == "learned"), None)
        for r in pos:
            x = summary([r])
            rel = f"{x['ms'] / learned:.2f}x" if learned else "-"
            print(f"| {r['pos']} | {x['ms']:.1f} | {x['tps']:.0f} | {rel} | {x['rss']:.0f} |")

    print("\ntargets (issue 7):")
    for c, want in TARGETS.items():
        if c in ratios:
            t, m, _, _ = ratios[c]
            print(f"  {c}: tokens/s {t:.2f}x (want >= {want}x): {'met' if t >= want else 'NOT met'}; "
                  f"peak RSS {m:.2f} of PyTorch's (want <= 0.5): {'met' if m <= 0.5 else 'NOT met'}")
    if "small" in ratios:
        u = ratios["small"][2]
        print(f"  small: MFU {u:.2f} (want >= 0.80): {'met' if u >= 0.80 else 'NOT met'}")


if __name__ == "__main__":
    main(sys.argv[1])
