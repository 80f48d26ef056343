#!/usr/bin/env python3
"""Summarises bench/run.sh's results.jsonl: per config and side (ordo or PyTorch, fp32 or
bf16), the median ms/step over every timed step of every round, tokens/s, MFU, the largest
peak RSS; then the ratios. fp32 sides' MFU is against the best 2048^3 cblas_sgemm of the run
(the fp32 targets' denominator) and against the best 2048^3 ordo_gemm (ordo's own AVX-512
kernel where it runs, so that an MFU above 1 against OpenBLAS is put in proportion); bf16
sides' MFU is against oneDNN's own best 2048^3 bf16 matmul of the run (the bf16 targets'
denominator). Then the position schemes on `small`; then the fp32 targets and the bf16 ones
(bf16: the set for this machine's ISA), each met or NOT met. usage: bench/report.py results.jsonl"""
import json
import statistics
import sys

TARGETS = {"tiny": 1.5, "small": 1.25, "byte-small": 1.5}  # tokens/s ratio ordo/torch, fp32
# the bf16 targets, tokens/s of ordo --precision bf16: on a CPU with AMX, against PyTorch fp32 and
# PyTorch autocast-bf16; on AVX512-BF16 without AMX, against ordo fp32
BF16_AMX = {"small": (3.0, 4.0), "tiny": (2.5, None), "byte-small": (2.5, None)}
BF16_AVX512 = {"small": 1.6}


def scheme_table(pos, summary, config):
    """Each scheme against `none` on one config: the median ms/step over every timed step of every
    round; its ratio to `none` round by round (each round runs every scheme back to back, so
    a round's ratio shares that moment's load) and the median of those rounds' ratios, which
    a change of load between rounds does not bias as a ratio of all-round medians would; and
    the ratio of CPU time (all rounds), blind to waiting but steadier under load."""
    print(f"\nposition schemes on {config} (ordo), against none:\n")
    print("| pos | precision | ms/step | CPU ms/step | tokens/s | vs none (median of rounds) "
          "| by CPU time | rounds' ratios | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    precs = list(dict.fromkeys(r.get("precision", "fp32") for r in pos))
    for prec in precs:
        sel = [r for r in pos if r.get("precision", "fp32") == prec]
        base = [r for r in sel if r["pos"] == "none"]
        b = summary(base) if base else None
        for name in dict.fromkeys(r["pos"] for r in sel):
            mine = [r for r in sel if r["pos"] == name]
            x = summary(mine)
            cpu = f"{x['cpu'] / b['cpu']:.2f}x" if b else "-"
            per = []
            for r in mine:
                q = [n for n in base if n.get("round", 0) == r.get("round", 0)]
                if q:
                    per.append(summary([r])["ms"] / summary(q)["ms"])
            rounds = " ".join(f"{v:.2f}" for v in per) or "-"
            rel = f"{statistics.median(per):.2f}x" if per else "-"
            print(f"| {name} | {prec} | {x['ms']:.1f} | {x['cpu']:.1f} | {x['tps']:.0f} | {rel} "
                  f"| {cpu} | {rounds} | {x['rss']:.0f} |")


def side_name(impl, prec):
    return f"{impl} {prec}"


def main(path):
    rows = [json.loads(l) for l in open(path) if l.strip()]
    peaks = [r for r in rows if r["impl"] == "sgemm"]
    peak = max(r["gflops"] for r in peaks)
    own_peak = max(r.get("ordo_gflops", 0.0) for r in peaks) or peak
    bf16_peak = max(r.get("onednn_bf16_gflops", 0.0) for r in peaks)
    dnnl_peak = max(r.get("onednn_gflops", 0.0) for r in peaks)
    threads = peaks[0]["threads"]
    core, forced = peaks[0].get("openblas_core", "?"), peaks[0].get("openblas_coretype_env", "")
    backend = peaks[0].get("ordo_gemm", "?")
    isa, onednn = peaks[0].get("onednn_isa", "?"), peaks[0].get("onednn_version", "?")
    load = next((r["loadavg"] for r in rows if r["impl"] == "load"), "?")

    def summary(sel):
        steps = [ms for r in sel for ms in r["steps_ms"]]
        med = statistics.median(steps)
        tokens = round(sel[0]["tokens_per_s"] * sel[0]["ms"] / 1e3)  # B*T
        cpu = statistics.median(r["cpu_ms"] for r in sel)  # medians of the runs
        bf16 = sel[0].get("precision", "fp32") == "bf16"
        flops = sel[0]["gflop"] / (med / 1e3)
        return dict(ms=med, cpu=cpu, tps=tokens / (med / 1e3),
                    mfu=flops / (bf16_peak if bf16 and bf16_peak else peak),
                    mfu_own=flops / own_peak, rss=max(r["rss_mb"] for r in sel), n=len(steps),
                    loss=(sel[0]["loss_first"], sel[0]["loss_last"]))

    cpu, kernels = peaks[0].get("cpu", "?"), peaks[0].get("ordo_kernels", "?")
    print(f"CPU {cpu}; ordo's kernels (fused attention, own GEMM): {kernels}")
    print(f"threads {threads}, 2048^3 peaks (best of the run): cblas_sgemm {peak:.1f} GFLOP/s "
          f"(OpenBLAS core {core}{', OPENBLAS_CORETYPE=' + forced if forced else ''}), "
          f"ordo_gemm {own_peak:.1f} GFLOP/s (ordo's GEMM: {backend}), oneDNN {onednn} on {isa}: "
          f"fp32 {dnnl_peak:.1f}, bf16 {bf16_peak:.1f} GFLOP/s; load average at the end {load}\n")
    print("MFU: fp32 sides against the cblas_sgemm peak, bf16 sides against oneDNN's bf16 peak\n")
    print("| config | side | ms/step | CPU ms/step | tokens/s | MFU | peak RSS MB | steps | loss first/last |")
    print("|---|---|---|---|---|---|---|---|---|")
    vs = [r for r in rows if r.get("section") == "vs"]
    configs = list(dict.fromkeys(r["config"] for r in vs))
    sides = [("ordo", "fp32"), ("ordo", "bf16"), ("torch", "fp32"), ("torch", "bf16")]
    res = {}
    for c in configs:
        for impl, prec in sides:
            sel = [r for r in vs if r["config"] == c and r["impl"] == impl
                   and r.get("precision", "fp32") == prec]
            if not sel:
                continue
            x = res[c, impl, prec] = summary(sel)
            label = side_name(impl, prec) + (" (autocast)" if impl == "torch" and prec == "bf16" else "")
            print(f"| {c} | {label} | {x['ms']:.1f} | {x['cpu']:.1f} | {x['tps']:.0f} | {x['mfu']:.2f} "
                  f"| {x['rss']:.0f} | {x['n']} | {x['loss'][0]:.3f} / {x['loss'][1]:.3f} |")

    ratios = {}
    for c in configs:
        o, t = res.get((c, "ordo", "fp32")), res.get((c, "torch", "fp32"))
        if o and t:
            ratios[c] = (o["tps"] / t["tps"], o["rss"] / t["rss"], o["mfu"], t["cpu"] / o["cpu"],
                         o["mfu_own"])
    if ratios:
        print("\nfp32:\n")
        print("| config | tokens/s ordo/PyTorch | by CPU time | peak RSS ordo/PyTorch | ordo MFU (cblas peak) "
              "| ordo MFU (ordo_gemm peak) |")
        print("|---|---|---|---|---|---|")
        for c, (t, m, u, pc, uo) in ratios.items():
            print(f"| {c} | {t:.2f}x | {pc:.2f}x | {m:.2f} | {u:.2f} | {uo:.2f} |")
        print("\n(by CPU time: PyTorch's CPU ms/step over ordo's, all threads; steadier than wall time\n"
              "when other processes share the cores, but blind to idle waiting)")

    bf = {}
    for c in configs:
        b = res.get((c, "ordo", "bf16"))
        if not b:
            continue
        of, tf, tb = (res.get((c, s, p)) for s, p in [("ordo", "fp32"), ("torch", "fp32"), ("torch", "bf16")])
        bf[c] = dict(vs_ordo=b["tps"] / of["tps"] if of else None,
                     vs_torch=b["tps"] / tf["tps"] if tf else None,
                     vs_autocast=b["tps"] / tb["tps"] if tb else None,
                     cpu_ordo=of["cpu"] / b["cpu"] if of else None, mfu=b["mfu"],
                     rss=b["rss"] / of["rss"] if of else None,
                     autocast_vs_torch=tb["tps"] / tf["tps"] if tb and tf else None)
    fmt = lambda v, s="x": "-" if v is None else f"{v:.2f}{s}"
    if bf:
        print("\nbf16 (tokens/s of ordo --precision bf16 over each peer's):\n")
        print("| config | over ordo fp32 | by CPU time | over PyTorch fp32 | over PyTorch autocast-bf16 "
              "| ordo bf16 MFU (oneDNN bf16 peak) | PyTorch autocast over its fp32 | peak RSS bf16/fp32 |")
        print("|---|---|---|---|---|---|---|---|")
        for c, x in bf.items():
            print(f"| {c} | {fmt(x['vs_ordo'])} | {fmt(x['cpu_ordo'])} | {fmt(x['vs_torch'])} "
                  f"| {fmt(x['vs_autocast'])} | {x['mfu']:.2f} | {fmt(x['autocast_vs_torch'])} "
                  f"| {fmt(x['rss'], '')} |")

    pos = [r for r in rows if r.get("section") == "pos"]
    for config in dict.fromkeys(r.get("config", "small") for r in pos):
        scheme_table([r for r in pos if r.get("config", "small") == config], summary, config)

    verdict = lambda ok: "met" if ok else "NOT met"
    print("\ntargets (issue 7, fp32):")
    for c, want in TARGETS.items():
        if c in ratios:
            t, m = ratios[c][:2]
            print(f"  {c}: tokens/s {t:.2f}x (want >= {want}x): {verdict(t >= want)}; "
                  f"peak RSS {m:.2f} of PyTorch's (want <= 0.5): {verdict(m <= 0.5)}")
    if "small" in ratios:
        u, uo = ratios["small"][2], ratios["small"][4]
        print(f"  small: MFU {u:.2f} against the cblas_sgemm peak (want >= 0.80): "
              f"{verdict(u >= 0.80)}; {uo:.2f} against ordo_gemm's own 2048^3 peak"
              f" ({verdict(uo >= 0.80)} by that stricter measure)")

    amx = "amx" in isa
    print(f"\ntargets (issue 16, bf16; oneDNN runs {isa} here, so the "
          f"{'AMX' if amx else 'AVX512-BF16 without AMX'} set applies):")
    if not bf:
        print("  no bf16 rows: this CPU runs no bf16 (or PRECISIONS left it out); nothing to judge")
    elif amx:
        for c, (want_t, want_a) in BF16_AMX.items():
            if c not in bf:
                continue
            x = bf[c]
            line = f"  {c}: {fmt(x['vs_torch'])} PyTorch fp32 (want >= {want_t}x): " \
                   f"{verdict(x['vs_torch'] is not None and x['vs_torch'] >= want_t)}"
            if want_a:
                line += f"; {fmt(x['vs_autocast'])} PyTorch autocast-bf16 (want >= {want_a}x): " \
                        f"{verdict(x['vs_autocast'] is not None and x['vs_autocast'] >= want_a)}"
            print(line)
    else:
        for c, want in BF16_AVX512.items():
            if c in bf:
                v = bf[c]["vs_ordo"]
                print(f"  {c}: bf16 {fmt(v)} ordo fp32 (want >= {want}x): "
                      f"{verdict(v is not None and v >= want)}")
        print("  (the AMX targets, small >= 3x PyTorch fp32 and >= 4x autocast, tiny and "
              "byte-small >= 2.5x PyTorch fp32, apply only to CPUs with AMX)")
    for c in ("small",):
        if c in bf:
            print(f"  {c}: MFU {bf[c]['mfu']:.2f} against oneDNN's bf16 2048^3 peak of this run "
                  f"({bf16_peak:.1f} GFLOP/s)")


if __name__ == "__main__":
    main(sys.argv[1])
