#!/usr/bin/env bash
# The fused attention's long-context measurements, one command: wall time and peak RSS
# (/usr/bin/time's "Maximum resident set size") of
#   eval   `ordo eval` of a byte model (C 128, L 2, NH 4, trained here at context 64 on
#          tinyshakespeare's bytes, TRAIN_STEPS steps) at --context 4096, --attention fused
#          against materialized, interleaved ROUNDS times (alibi and rope; alibi also on the
#          build of BASE_COMMIT, the code before the fused attention, BASE_ROUNDS times); then
#          fused at each of LONG_CONTEXTS for every scheme that can go past its training length, one
#          window each, and a GPT-2-vocabulary model of the same shape
#   train  build/bench_train (byte, C 256, L 4, NH 4, alibi) at T 2048, B 4: ms/step and peak
#          RSS, fused, materialized and the PyTorch peer (bench/torch_peer.py --pos alibi: eager
#          attention with a materialized [NH, T, T] ALiBi bias) interleaved TRAIN_ROUNDS times; then
#          T 16384, B 1, fused, once
#   both   with FTZ_SIDE=1 (the default, on x86-64 with a C compiler) the 4096 evals and the
#          T 2048 training also run materialized with denormals flushed (FTZ and DAZ set by a
#          preloaded constructor, $OUT/ftz.so, inherited by every thread): flash.c flushes them
#          while it runs, the materialized path does not, and on Intel cores denormal products
#          (ALiBi's far keys) take microcode assists; this side shows what that costs
#   small  bench/run.sh's `small` (gpt2 V 50257, T 256, B 8, C 256, L 4, NH 4, learned) in fp32
#          and bf16 (where oneDNN runs it): this build's bench_train against BASE_COMMIT's
#          (a32be19 by default: before the chunked LM head), interleaved ROUNDS times
# with the CPU model, the kernels (ordo --version, bench_train --peak) and the load average
# before and after each part. Prints one table per part (medians over the rounds, ratios
# against the peer of the same run) and the targets as met or MISSED; keeps the raw
# rows in $OUT/results.jsonl and each command's output in $OUT/logs/.
#
# Evals run as a user runs them (no tuning environment); the training sides run under
# bench/run.sh's tuned environment (OMP_WAIT_POLICY=PASSIVE MALLOC_MMAP_MAX_=0
# MALLOC_TRIM_THRESHOLD_=100000000000), so that they compare with its tables.
# BASE_COMMIT is exported with `git archive` into $BASE_DIR and built there (ordo and
# bench_train only), once; it needs no worktree.
#
# usage: bench/long_context.sh
#        bench/long_context.sh --report OUT/results.jsonl   (the tables of an earlier run again)
# env:   THREADS (default: all cores)  ROUNDS (interleaved rounds of the quick comparisons,
#        default 3)  OUT (default .cache/long_context)  PARTS (default "eval train small")
#        SCHEMES (default "alibi rope t5 kerple kerple-power fire xpos sinusoidal none")
#        CMP_SCHEMES (4096 fused vs materialized, default "alibi rope")
#        LONG_CONTEXTS (default "16384 65536")  TRAIN_STEPS (byte models, default 200)
#        GPT2_TRAIN_STEPS (default 20: its LM head makes a step 30x a byte step)
#        TRAIN_ROUNDS (T 2048 rounds, default 2: a materialized step is seconds)
#        STEPS / WARMUP (T 2048 timed / untimed steps, default 2 / 1)
#        LONG_STEPS (T 16384 timed steps, default 2, no warm-up)
#        SMALL_STEPS / SMALL_WARMUP (default 5 / 2)  BASE_COMMIT (default a32be19; "" skips
#        the base build's rows)  BASE_ROUNDS (base build's 4096 evals, default 1: ~50 s each)
#        FTZ_SIDE (default 1; 0 leaves out the materialized-with-FTZ/DAZ sides)
# About 15 minutes on 2 quiet cores with the defaults; 20 at a load average of 4-7 without
# the FTZ sides.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
build=${ORDO_BUILD_DIR:-$repo/build}
THREADS=${THREADS:-$(nproc)}
ROUNDS=${ROUNDS:-3}
OUT=${OUT:-$repo/.cache/long_context}
PARTS=${PARTS:-eval train small}
SCHEMES=${SCHEMES-alibi rope t5 kerple kerple-power fire xpos sinusoidal none}
CMP_SCHEMES=${CMP_SCHEMES-alibi rope}
LONG_CONTEXTS=${LONG_CONTEXTS-16384 65536}
TRAIN_STEPS=${TRAIN_STEPS:-200}
GPT2_TRAIN_STEPS=${GPT2_TRAIN_STEPS:-20}
TRAIN_ROUNDS=${TRAIN_ROUNDS:-2}
STEPS=${STEPS:-2}
WARMUP=${WARMUP:-1}
LONG_STEPS=${LONG_STEPS:-2}
SMALL_STEPS=${SMALL_STEPS:-5}
SMALL_WARMUP=${SMALL_WARMUP:-2}
BASE_COMMIT=${BASE_COMMIT-a32be19}
BASE_ROUNDS=${BASE_ROUNDS:-1}
BASE_DIR=${BASE_DIR:-$repo/.cache/base-$BASE_COMMIT}
FTZ_SIDE=${FTZ_SIDE:-1}
PY=/usr/bin/python3 # Debian's python3-torch is installed for the system interpreter
say() { echo "long_context: $*" >&2; }

report() { # RESULTS.jsonl: the tables and the targets
  "$PY" - "$1" <<'EOF'
# The tables: medians over the rounds, ratios against the peer of the same run, the targets.
import json, statistics, sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
mach = next(r for r in rows if r["kind"] == "machine")
peak = next((r["line"] for r in rows if r["kind"] == "peak"), {})
runs = [r for r in rows if r["kind"] == "run"]
loads = {(r["part"], r["when"]): r["load"] for r in rows if r["kind"] == "load"}
med = statistics.median
def mb(kb):  # /usr/bin/time reports KiB; the tables show MB = 10^6 bytes
    return kb * 1024 / 1e6

def tool_json(r):
    """The command's JSON (bench_train's line, the peer's line or eval --json's report)."""
    try:
        text = open(r["out"]).read()
        i = text.find("{")
        return json.loads(text[i:]) if i >= 0 else {}
    except (OSError, ValueError):
        return {}

def group(part, case, side):
    return [r for r in runs if r["part"] == part and r["case"] == case and r["side"] == side]

print()
print(f"CPU: {mach['cpu']}; {mach['cores']} cores, {mach['threads']} threads; ordo {mach['head']}"
      f"{' (sys/framework/models/run/eval/train/cli modified)' if mach['dirty'] else ''}")
print(f"kernels: {mach['kernels']}; 2048^3 peak GFLOP/s: OpenBLAS sgemm {peak.get('gflops')} "
      f"(core {peak.get('openblas_core')}), ordo_gemm {peak.get('ordo_gflops')} ({peak.get('ordo_gemm')}), "
      f"oneDNN f32 {peak.get('onednn_gflops')}, bf16 {peak.get('onednn_bf16_gflops')} ({peak.get('onednn_isa')})")
targets = []

def target(name, ok, how):
    targets.append((name, ok, how))

def fmt(v, f="%.2f"):
    return "-" if v is None else f % v

def stats(rs, key):
    """median of key over the runs that succeeded, their count, and the last failure's message"""
    ok = [r for r in rs if r["rc"] == 0]
    vals = [v for v in (key(r) for r in ok) if v is not None]
    fail = "" if len(ok) == len(rs) else f" ({len(rs) - len(ok)} failed: {rs[-1]['msg']})"
    return (med(vals) if vals else None), f"{len(ok)}/{len(rs)}", fail

def eval_loss(r):
    res = tool_json(r).get("results") or []
    return res[0].get("val_loss") if res else None

def bench_key(k):
    return lambda r: tool_json(r).get(k)

parts = {r["part"] for r in runs}
if "eval" in parts:
    print(f"\n## a. ordo eval, byte model C 128 L 2 NH 4 trained at 64 (load {loads.get(('eval','start'))} -> "
          f"{loads.get(('eval','end'))})")
    print(f"| context | model | attention | runs | wall s (median) | peak RSS MB (median) | val loss | fused vs materialized (wall, RSS) | fused vs materialized + FTZ/DAZ | fused vs {mach['base']} (wall, RSS) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    cases = []
    for r in runs:
        if r["part"] == "eval" and (r["case"], r["side"]) not in cases:
            cases.append((r["case"], r["side"]))
    res, extra = {}, {}
    for case, side in cases:
        rs = group("eval", case, side)
        w, n_ok, fail = stats(rs, lambda r: r["wall_s"])
        m, _, _ = stats(rs, lambda r: mb(r["rss_kb"]))
        loss, _, _ = stats(rs, eval_loss)
        res[(case, side)] = (w, m)
        extra[(case, side)] = (n_ok, fail, loss)
    for case, side in cases:
        T, s = case.split("-", 1)
        w, m = res[(case, side)]
        n_ok, fail, loss = extra[(case, side)]
        vs = {}
        for peer in ("materialized", "materialized-ftz", "base"):
            q = res.get((case, peer))
            vs[peer] = f"{w / q[0]:.3f}x, {m / q[1]:.3f}x" if side == "fused" and q and q[0] and w else ""
        label = {"base": f"materialized, {mach['base']} (before issue 25)",
                 "materialized-ftz": "materialized, FTZ/DAZ preloaded"}.get(side, side)
        model = ("byte " if not s.startswith("gpt2") else "") + s
        print(f"| {T} | {model} | {label} | {n_ok} | {fmt(w)} | {fmt(m, '%.0f')} | {fmt(loss, '%.4f')} | "
              f"{vs['materialized']} | {vs['materialized-ftz']} | {vs['base']} |{fail}")
    for case, side in cases:
        T, s = case.split("-", 1)
        w, m = res[(case, side)]
        if T == "4096" and side == "fused" and w:
            mat = res.get((case, "materialized"), (None, None))
            if mat[0]:
                target(f"eval 4096 {s}: fused <= 0.35x materialized wall, same run", w / mat[0] <= 0.35,
                       f"{w:.2f} s / {mat[0]:.2f} s = {w / mat[0]:.3f}x")
            mz = res.get((case, "materialized-ftz"), (None, None))
            if mz[0]:
                target(f"eval 4096 {s}: fused <= 0.35x materialized with denormals flushed, same run",
                       w / mz[0] <= 0.35, f"{w:.2f} s / {mz[0]:.2f} s = {w / mz[0]:.3f}x")
            b = res.get((case, "base"), (None, None))
            if b[0]:
                target(f"eval 4096 {s}: fused <= 0.35x the code before issue 25 ({mach['base']}), same run",
                       w / b[0] <= 0.35, f"{w:.2f} s / {b[0]:.2f} s = {w / b[0]:.3f}x")
            target(f"eval 4096 {s}: fused <= 0.35x the issue's 11.2 s (measured on another machine)",
                   w <= 0.35 * 11.2, f"{w:.2f} s = {w / 11.2:.3f}x of 11.2 s")
        if T == "65536":
            lim = 3000 if s.startswith("gpt2") else 1500
            if m is None:
                target(f"eval 65536 {s}: runs, peak RSS <= {lim} MB", False,
                       "failed: " + group("eval", case, side)[-1]["msg"])
            else:
                target(f"eval 65536 {s}: peak RSS <= {lim} MB", m <= lim, f"{m:.0f} MB")

if "train" in parts:
    print(f"\n## b. training, byte C 256 L 4 NH 4 alibi (load {loads.get(('train','start'))} -> "
          f"{loads.get(('train','end'))})")
    print("| T x B | side | runs | ms/step (median) | CPU ms/step (median) | peak RSS MB (median) | loss first -> last | vs materialized (time, RSS) | vs materialized + FTZ/DAZ | vs PyTorch (time, RSS) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    tr = {}
    for case in ("2048x4", "16384x1"):
        for side in ("materialized", "materialized-ftz", "torch", "fused"):
            rs = group("train", case, side)
            if rs:
                t, n_ok, fail = stats(rs, bench_key("ms"))
                c, _, _ = stats(rs, bench_key("cpu_ms"))
                m, _, _ = stats(rs, lambda r: mb(r["rss_kb"]))
                j = next((tool_json(r) for r in rs if r["rc"] == 0), {})
                tr[(case, side)] = (t, c, m, n_ok, fail, j)
        for side in ("fused", "materialized", "materialized-ftz", "torch"):
            if (case, side) not in tr:
                continue
            t, c, m, n_ok, fail, j = tr[(case, side)]
            loss = f"{j['loss_first']:.3f} -> {j['loss_last']:.3f}" if j else "-"
            vs = {}
            for peer in ("materialized", "materialized-ftz", "torch"):
                q = tr.get((case, peer))
                vs[peer] = (f"{t / q[0]:.3f}x, {m / q[2]:.3f}x"
                            if peer != side and q and q[0] and t else "")
            label = {"torch": f"PyTorch {j.get('torch', '')} eager + ALiBi bias",
                     "materialized-ftz": "ordo materialized, FTZ/DAZ preloaded"}.get(side, "ordo " + side)
            print(f"| {case.replace('x', ' x ')} | {label} | {n_ok} | {fmt(t, '%.0f')} | {fmt(c, '%.0f')} | "
                  f"{fmt(m, '%.0f')} | {loss} | {vs['materialized']} | {vs['materialized-ftz']} | {vs['torch']} |{fail}")
    f, mt = tr.get(("2048x4", "fused")), tr.get(("2048x4", "materialized"))
    if f and mt and f[0] and mt[0]:
        target("train 2048x4: fused step time no worse than materialized (wall)", f[0] <= mt[0],
               f"{f[0]:.0f} / {mt[0]:.0f} ms = {f[0] / mt[0]:.3f}x")
        target("train 2048x4: fused step time no worse than materialized (CPU)", f[1] <= mt[1],
               f"{f[1]:.0f} / {mt[1]:.0f} ms = {f[1] / mt[1]:.3f}x")
        target("train 2048x4: fused peak RSS <= 0.5x materialized", f[2] <= 0.5 * mt[2],
               f"{f[2]:.0f} / {mt[2]:.0f} MB = {f[2] / mt[2]:.3f}x")
    mz = tr.get(("2048x4", "materialized-ftz"))
    if f and mz and f[0] and mz[0]:
        target("train 2048x4: fused step time no worse than materialized with denormals flushed (wall)",
               f[0] <= mz[0], f"{f[0]:.0f} / {mz[0]:.0f} ms = {f[0] / mz[0]:.3f}x")
    l = tr.get(("16384x1", "fused"))
    if l is not None:
        target("train 16384x1: trains, peak RSS <= 4000 MB", bool(l[0]) and l[2] <= 4000,
               f"{fmt(l[0], '%.0f')} ms/step, {fmt(l[2], '%.0f')} MB, loss "
               f"{l[5].get('loss_first', float('nan')):.3f} -> {l[5].get('loss_last', float('nan')):.3f}"
               if l[0] else "failed:" + l[4])

if "small" in parts:
    print(f"\n## c. small (gpt2 V 50257, T 256, B 8, C 256, L 4, NH 4, learned) against {mach['base']} "
          f"(load {loads.get(('small','start'))} -> {loads.get(('small','end'))})")
    print("| precision | build | runs | ms/step (median) | CPU ms/step (median) | peak RSS MB (median) | vs base (time, CPU, RSS) |")
    print("|---|---|---|---|---|---|---|")
    for p in ("fp32", "bf16"):
        got = {}
        for who in ("base", "new"):
            rs = group("small", f"small-{p}", who)
            if not rs:
                continue
            t, n_ok, fail = stats(rs, bench_key("ms"))
            c, _, _ = stats(rs, bench_key("cpu_ms"))
            m, _, _ = stats(rs, lambda r: mb(r["rss_kb"]))
            got[who] = (t, c, m)
            vs = ""
            if who == "new" and "base" in got and t and got["base"][0]:
                b = got["base"]
                vs = f"{t / b[0]:.3f}x, {c / b[1]:.3f}x, {m - b[2]:+.0f} MB"
            name = {"base": mach["base"], "new": mach["head"]}[who]
            print(f"| {p} | {name} | {n_ok} | {fmt(t, '%.0f')} | {fmt(c, '%.0f')} | {fmt(m, '%.0f')} | {vs} |{fail}")
        if "base" in got and "new" in got and got["new"][0] and got["base"][0]:
            n_, b = got["new"], got["base"]
            target(f"small {p}: peak RSS down by >= 300 MB", b[2] - n_[2] >= 300, f"{b[2] - n_[2]:.0f} MB down")
            target(f"small {p}: no slower (wall ms/step)", n_[0] <= b[0], f"{n_[0] / b[0]:.3f}x")
            target(f"small {p}: no slower (CPU ms/step)", n_[1] <= b[1], f"{n_[1] / b[1]:.3f}x")

print("\n## targets (issue 25)")
for name, ok, how in targets:
    print(f"- {'met' if ok else 'MISSED'}: {name}: {how}")
print(f"\n(medians over the rounds; MB = 10^6 bytes of /usr/bin/time's maximum resident set size; raw rows in {sys.argv[1]})")
EOF
}

# bench/long_context.sh --report FILE: print the tables of an earlier run again
if [ "${1:-}" = --report ]; then
  report "${2:?usage: bench/long_context.sh --report OUT/results.jsonl}"
  exit
fi
mkdir -p "$OUT/logs" "$OUT/runs"
res=$OUT/results.jsonl
: >"$res"

load() { cut -d' ' -f1-3 /proc/loadavg; }
row() { echo "$1" >>"$res"; } # a JSON object

# --- builds (incremental), PyTorch, data
if [ ! -f "$build/CMakeCache.txt" ]; then scripts/setup.sh; fi
cmake --build "$build" -j "$(nproc)" --target ordo bench_train >/dev/null
base=""
if [ -n "$BASE_COMMIT" ]; then
  base=$BASE_DIR/build
  if [ ! -x "$base/bench_train" ] || [ ! -x "$base/ordo" ]; then
    say "building $BASE_COMMIT in $BASE_DIR (ordo, bench_train)"
    mkdir -p "$BASE_DIR"
    git archive "$BASE_COMMIT" | tar -x -C "$BASE_DIR"
    cmake -S "$BASE_DIR" -B "$base" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$base" -j "$(nproc)" --target ordo bench_train >/dev/null
  fi
fi
if [[ " $PARTS " == *" train "* ]] && ! "$PY" -c 'import torch' 2>/dev/null; then
  say "installing python3-torch (Debian)"
  if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo=sudo; fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-torch
fi
data/fetch.sh shakespeare vocab
cache=${ORDO_CACHE:-$repo/.cache}
text=$cache/data/tinyshakespeare.txt
vocab=$cache/gpt2
# int32 ids for bench_train and the peer (as bench/run.sh), an ordo token file for eval --data
. "$repo/bench/ids.sh"
bench_ids "$OUT" "$build/ordo" "$PY" "$text" "$vocab"
"$build/ordo" tokenize --tokenizer gpt2 --vocab "$vocab" --out "$OUT/gpt2.tokens" "$text" >/dev/null 2>&1

# the materialized side with denormals flushed (see the header)
ftz=""
if [ "$FTZ_SIDE" = 1 ] && [ "$(uname -m)" = x86_64 ] && command -v cc >/dev/null; then
  printf '%s\n' '#include <xmmintrin.h>' \
    '__attribute__((constructor)) static void bench_ftz(void) { _mm_setcsr(_mm_getcsr() | 0x8040); }' \
    >"$OUT/ftz.c"
  cc -O2 -shared -fPIC -o "$OUT/ftz.so" "$OUT/ftz.c" && ftz=$OUT/ftz.so
fi

# --- the machine
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -n1)
kernels=$("$build/ordo" --version | sed -n 2p)
bf16=$("$build/ordo" --version | grep -q '^--precision bf16: available' && echo 1 || echo 0)
esc() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
row "{\"kind\":\"machine\",\"cpu\":\"$(esc "$cpu")\",\"kernels\":\"$(esc "$kernels")\",\"threads\":$THREADS,\"train_rounds\":$TRAIN_ROUNDS,\"cores\":$(nproc),\"bf16\":$bf16,\"rounds\":$ROUNDS,\"base\":\"$BASE_COMMIT\",\"head\":\"$(git rev-parse --short HEAD)\",\"dirty\":$(git diff --quiet HEAD -- sys framework models run eval train cli && echo false || echo true)}"
row "{\"kind\":\"peak\",\"line\":$(OMP_NUM_THREADS=$THREADS "$build/bench_train" --peak --threads "$THREADS")}"
say "$cpu; $kernels; threads $THREADS, rounds $ROUNDS; load $(load)"

# measure PART CASE SIDE -- COMMAND...: wall time and peak RSS by /usr/bin/time; the command's
# stdout kept in logs/ (a JSON line or report that the table reads), its stderr's last line
# kept as the message when it fails
n=0
measure() {
  local part=$1 case=$2 side=$3
  shift 4
  n=$((n + 1))
  local log=$OUT/logs/$n-$part-$case-$side
  local rc=0
  /usr/bin/time -v -o "$log.time" "$@" >"$log.out" 2>"$log.err" || rc=$?
  local wall rss
  wall=$(sed -n 's/^.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log.time" |
    awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  rss=$(sed -n 's/^.*Maximum resident set size (kbytes): //p' "$log.time")
  local msg=""
  if [ "$rc" -ne 0 ]; then msg=$(grep -v '^\s*$' "$log.err" | grep -v 'Command exited' | tail -n1); fi
  row "{\"kind\":\"run\",\"part\":\"$part\",\"case\":\"$case\",\"side\":\"$side\",\"rc\":$rc,\"wall_s\":${wall:-0},\"rss_kb\":${rss:-0},\"load\":\"$(load)\",\"out\":\"$log.out\",\"msg\":\"$(esc "$msg")\"}"
  printf 'long_context: %-6s %-22s %-14s rc %d  %8.2f s  %7.0f MB  (load %s)\n' "$part" "$case" \
    "$side" "$rc" "${wall:-0}" "$(((${rss:-0} + 512) / 1024))" "$(load)" >&2
}
mark() { row "{\"kind\":\"load\",\"part\":\"$1\",\"when\":\"$2\",\"load\":\"$(load)\"}"; }

# --- a. eval
if [[ " $PARTS " == *" eval "* ]]; then
  mark eval start
  model=(--context 64 --d-model 128 --layers 2 --heads 4 --batch 16 --eval-every 0
    --log-every 50 --threads "$THREADS")
  train_model() { # BUILD DIR STEPS train-args...
    local b=$1 dir=$2 steps=$3
    shift 3
    rm -rf "$dir"
    "$b/ordo" train "${model[@]}" --steps "$steps" --ckpt-every "$steps" --out "$dir" "$@" \
      >"$dir.log" 2>&1 || { say "training $dir failed:"; tail -n 5 "$dir.log" >&2; exit 1; }
  }
  for s in $(echo $SCHEMES $CMP_SCHEMES | tr ' ' '\n' | awk '!seen[$0]++'); do
    train_model "$build" "$OUT/runs/byte-$s" "$TRAIN_STEPS" --data "$text" --tokenizer byte --pos "$s"
  done
  train_model "$build" "$OUT/runs/gpt2-alibi" "$GPT2_TRAIN_STEPS" --data "$OUT/gpt2.tokens" --pos alibi
  if [ -n "$base" ] && [[ " $CMP_SCHEMES " == *" alibi "* ]]; then
    # the base build cannot read this build's config.json (it has --attention): the same
    # training on the base build (same seed, the same model: eval prints the same loss)
    train_model "$base" "$OUT/runs/byte-alibi-base" "$TRAIN_STEPS" --data "$text" --tokenizer byte --pos alibi
  fi
  say "models trained; load $(load)"
  ev() { "$build/ordo" eval "$@" --threads "$THREADS" --json; }
  for ((r = 0; r < ROUNDS; r++)); do
    for s in $CMP_SCHEMES; do
      sides=(fused materialized)
      if [ -n "$ftz" ]; then sides+=(materialized-ftz); fi
      for ((i = 0; i < ${#sides[@]}; i++)); do
        a=${sides[(i + r) % ${#sides[@]}]}
        pre=()
        if [ "$a" = materialized-ftz ]; then pre=(env LD_PRELOAD="$ftz"); fi
        measure eval "4096-$s" "$a" -- "${pre[@]}" "$build/ordo" eval "$OUT/runs/byte-$s" \
          --context 4096 --attention "${a%-ftz}" --threads "$THREADS" --json
      done
      if [ "$s" = alibi ] && [ -n "$base" ] && ((r < BASE_ROUNDS)); then
        measure eval "4096-$s" "base" -- "$base/ordo" eval "$OUT/runs/byte-alibi-base" \
          --context 4096 --threads "$THREADS" --json
      fi
    done
  done
  mark eval mid
  for T in $LONG_CONTEXTS; do
    for s in $SCHEMES; do
      measure eval "$T-$s" fused -- "$build/ordo" eval "$OUT/runs/byte-$s" --context "$T" \
        --max-windows 1 --batch 1 --threads "$THREADS" --json
    done
    # the gpt2 model's validation split (34k tokens) is shorter than 65536: all of
    # tinyshakespeare as an ordo token file (338k tokens), its first window
    measure eval "$T-gpt2-alibi" fused -- "$build/ordo" eval "$OUT/runs/gpt2-alibi" \
      --context "$T" --data "$OUT/gpt2.tokens" --max-windows 1 --batch 1 --threads "$THREADS" --json
  done
  mark eval end
fi

# --- b. training at long T
export OMP_WAIT_POLICY=PASSIVE MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=100000000000
export OMP_NUM_THREADS=$THREADS
if [[ " $PARTS " == *" train "* ]]; then
  mark train start
  bt=(--ids "$OUT/byte.bin" --V 256 --C 256 --L 4 --NH 4 --threads "$THREADS")
  sides=(fused materialized torch)
  if [ -n "$ftz" ]; then sides+=(materialized-ftz); fi
  for ((r = 0; r < TRAIN_ROUNDS; r++)); do
    for ((i = 0; i < ${#sides[@]}; i++)); do
      a=${sides[(i + r) % ${#sides[@]}]}
      pre=()
      if [ "$a" = materialized-ftz ]; then pre=(env LD_PRELOAD="$ftz"); fi
      if [ "$a" = torch ]; then
        measure train 2048x4 torch -- "$PY" bench/torch_peer.py "${bt[@]}" --T 2048 --B 4 \
          --pos alibi --steps "$STEPS" --warmup "$WARMUP"
      else
        measure train 2048x4 "$a" -- "${pre[@]}" "$build/bench_train" "${bt[@]}" --T 2048 --B 4 \
          --pos alibi --attention "${a%-ftz}" --steps "$STEPS" --warmup "$WARMUP"
      fi
    done
  done
  measure train 16384x1 fused -- "$build/bench_train" "${bt[@]}" --T 16384 --B 1 --pos alibi \
    --attention fused --steps "$LONG_STEPS" --warmup 0
  mark train end
fi

# --- c. small against the build before the chunked LM head
if [[ " $PARTS " == *" small "* ]] && [ -n "$base" ]; then
  mark small start
  precs=(fp32)
  if [ "$bf16" = 1 ]; then precs+=(bf16); fi
  sides=()
  for p in "${precs[@]}"; do sides+=("new $p" "base $p"); done
  st=(--ids "$OUT/gpt2.bin" --V 50257 --T 256 --B 8 --C 256 --L 4 --NH 4 --pos learned
    --steps "$SMALL_STEPS" --warmup "$SMALL_WARMUP" --threads "$THREADS")
  for ((r = 0; r < ROUNDS; r++)); do
    for ((i = 0; i < ${#sides[@]}; i++)); do
      read -r who p <<<"${sides[(i + r) % ${#sides[@]}]}"
      b=$build
      if [ "$who" = base ]; then b=$base; fi
      measure small "small-$p" "$who" -- "$b/bench_train" "${st[@]}" --precision "$p"
    done
  done
  mark small end
fi

report "$res"
say "load at the end: $(load)"
