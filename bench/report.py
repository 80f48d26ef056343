#!/usr/bin/env python3
"""Summarises bench/run.sh's results.jsonl: per config, the median ms/step over every timed
step of every round of a side, tokens/s, MFU against the best 2048^3 cblas_sgemm of the run
(the issue's denominator) and against the best 2048^3 ordo_gemm (ordo's own AVX-512 kernel
where it runs, so that an MFU above 1 against OpenBLAS is put in proportion), the largest
peak RSS, and the ratios ordo/PyTorch; then the position schemes on `small`; then the issue 7
targets, each met or not. usage: bench/report.py results.jsonl"""
import json
import statistics
import sys

TARGETS = {"tiny": 1.5, "small": 1.25, "byte-small": 1.5}  # tokens/s ratio ordo/torch


def main(path):
    rows = [json.loads(l) for l in open(path) if l.strip()]
    peaks = [r for r in rows if r["impl"] == "sgemm"]
    peak = max(r["gflops"] for r in peaks)
    own_peak = max(r.get("ordo_gflops", 0.0) for r in peaks) or peak
    threads = peaks[0]["threads"]
    core, forced = peaks[0].get("openblas_core", "?"), peaks[0].get("openblas_coretype_env", "")
    backend = peaks[0].get("ordo_gemm", "?")
    load = next((r["loadavg"] for r in rows if r["impl"] == "load"), "?")

    def summary(sel):
        steps = [ms for r in sel for ms in r["steps_ms"]]
        med = statistics.median(steps)
        tokens = round(sel[0]["tokens_per_s"] * sel[0]["ms"] / 1e3)  # B*T
        cpu = statistics.median(r["cpu_ms"] for r in sel)  # medians of the runs
        return dict(ms=med, cpu=cpu, tps=tokens / (med / 1e3),
                    mfu=sel[0]["gflop"] / (med / 1e3) / peak,
                    mfu_own=sel[0]["gflop"] / (med / 1e3) / own_peak,
                    rss=max(r["rss_mb"] for r in sel), n=len(steps),
                    loss=(sel[0]["loss_first"], sel[0]["loss_last"]))

    print(f"threads {threads}, 2048^3 peaks (best of the run): cblas_sgemm {peak:.1f} GFLOP/s "
          f"(OpenBLAS core {core}{', OPENBLAS_CORETYPE=' + forced if forced else ''}), "
          f"ordo_gemm {own_peak:.1f} GFLOP/s (ordo's GEMM: {backend}); load average at the end {load}\n")
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
                         s["ordo"]["mfu"], s["torch"]["cpu"] / s["ordo"]["cpu"], s["ordo"]["mfu_own"])
    print("\n| config | tokens/s ordo/PyTorch | by CPU time | peak RSS ordo/PyTorch | ordo MFU (cblas peak) "
          "| ordo MFU (ordo_gemm peak) |")
    print("|---|---|---|---|---|---|")
    for c, (t, m, u, pc, uo) in ratios.items():
        print(f"| {c} | {t:.2f}x | {pc:.2f}x | {m:.2f} | {u:.2f} | {uo:.2f} |")
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
            t, m = ratios[c][:2]
            print(f"  {c}: tokens/s {t:.2f}x (want >= {want}x): {'met' if t >= want else 'NOT met'}; "
                  f"peak RSS {m:.2f} of PyTorch's (want <= 0.5): {'met' if m <= 0.5 else 'NOT met'}")
    if "small" in ratios:
        u, uo = ratios["small"][2], ratios["small"][4]
        print(f"  small: MFU {u:.2f} against the cblas_sgemm peak (want >= 0.80): "
              f"{'met' if u >= 0.80 else 'NOT met'}; {uo:.2f} against ordo_gemm's own 2048^3 peak"
              f" ({'met' if uo >= 0.80 else 'NOT met'} by that stricter measure)")


if __name__ == "__main__":
    main(sys.argv[1])
