#!/usr/bin/env bash
# `ordo baseline` through the real binary: on a text file (the sonnet of tests/ref/ngram_ref.py,
# rebuilt from its fixture) the levels equal the Python reference's; the cache is written,
# read back (the same numbers) and fitted again when damaged; on a run directory the levels
# are scored on exactly the targets `ordo eval` scores (the same counts, both modes), and eval's
# rows carry the same levels (ngram_loss, none with --no-ngram); and the
# errors name what is wrong.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$dir" || exit 1
export ORDO_CACHE_DIR=$dir/cache
fixture=$src/tests/ref/fixtures/ngram_wb.json

python3 - "$fixture" <<'PY' || bad "the sonnet from the fixture"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
open("sonnet.txt", "wb").write(bytes(c["train"] + c["val"]))
PY
args=(sonnet.txt --tokenizer byte --val-frac 0.2 --context 16 --sliding-stride 4 --order 4)

# the levels of the reference (T 16: nonoverlap, sliding 4), to the 9 digits --json prints
same_as_fixture() {
  python3 - "$fixture" "$1" <<'PY'
import json, sys
want = {(l["mode"], l["stride"]): l for l in json.load(open(sys.argv[1]))["cases"][0]["levels"]
        if l["context"] == 16}
got = json.load(open(sys.argv[2]))
assert got["method"] == "interpolated Witten-Bell" and got["orders"] == 4, got
assert len(got["levels"]) == 2, got["levels"]
for l in got["levels"]:
    w = want[(l["mode"], l["stride"])]
    assert l["targets"] == w["targets"] and l["windows"] == w["windows"], (l, w)
    for a, b in zip(l["loss"], w["loss"]):
        assert abs(a - b) < 1e-8, (l, w)  # --json prints 9 digits
PY
}
"$ORDO" baseline "${args[@]}" --json > fit.json 2> fit.err || bad "baseline sonnet: $(cat fit.err)"
same_as_fixture fit.json && ok || bad "the levels differ from tests/ref/ngram_ref.py's"
grep -q '"cached": false' fit.json && ok || bad "the first call did not fit: $(head -c 300 fit.json)"
ls cache/ngram/*.json > /dev/null 2>&1 && ok || bad "no cache file under $ORDO_CACHE_DIR/ngram"
"$ORDO" baseline "${args[@]}" --json > again.json 2> again.err || bad "baseline again: $(cat again.err)"
grep -q '"cached": true' again.json && ok || bad "the second call did not read the cache"
same_as_fixture again.json && ok || bad "the cached levels differ from the reference"
# a damaged cache file: a note, fitted again, the same numbers, and rewritten
for f in cache/ngram/*.json; do echo '{"format": 3' > "$f"; done
"$ORDO" baseline "${args[@]}" --json > damaged.json 2> damaged.err || bad "baseline over a damaged cache: $(cat damaged.err)"
grep -q "does not read" damaged.err && ok || bad "no note on the damaged cache: $(cat damaged.err)"
same_as_fixture damaged.json && ok || bad "the levels after a damaged cache differ"
"$ORDO" baseline "${args[@]}" --json > fixed.json 2>/dev/null
grep -q '"cached": true' fixed.json && ok || bad "the damaged cache file was not rewritten"
# --no-cache fits, and the table prints every order
"$ORDO" baseline "${args[@]}" --no-cache > table.txt 2>&1 || bad "baseline --no-cache: $(cat table.txt)"
grep -q "^fitted" table.txt && ok || bad "--no-cache did not fit: $(cat table.txt)"
grep -Eq "^ +4 +2\.5343 +2\.5860$" table.txt && ok || bad "the table's order 4: $(cat table.txt)"

# a run: the n-gram levels count exactly the targets eval scores, in each mode
tiny=(--task order --d-model 16 --layers 1 --heads 2 --context 16 --steps 2 --corpus-tokens 3000
      --threads 1 --log-every 1 --pos rope)
"$ORDO" train "${tiny[@]}" --out run > /dev/null 2>&1 || bad "train run"
"$ORDO" baseline run --lengths 16,24 --sliding-stride 5 --json > run.json 2> run.err ||
  bad "baseline run: $(cat run.err)"
for mode in nonoverlap sliding; do
  "$ORDO" eval run --context 16,24 --mode $mode $([ $mode = sliding ] && echo --sliding-stride 5) --json > eval-$mode.json 2> eval.err ||
    bad "eval $mode: $(cat eval.err)"
done
python3 - <<'PY' && ok || bad "baseline's targets are not eval's"
import json
b = json.load(open("run.json"))
assert b["task"] == "order" and b["orders"] == 6, b
for mode in ("nonoverlap", "sliding"):
    e = {r["context"]: r for r in json.load(open(f"eval-{mode}.json"))["results"]}
    for l in b["levels"]:
        if l["mode"] != mode:
            continue
        r = e[l["context"]]
        assert l["targets"] == r["targets"] and l["windows"] == r["windows"], (mode, l, r)
        assert all(x > 0 for x in l["loss"]), l
        # and eval's row carries the same levels
        assert all(abs(a - b) < 1e-8 for a, b in zip(r["ngram_loss"], l["loss"])), (l, r)
        assert len(r["ngram_loss"]) == 6, r
PY
"$ORDO" eval run --no-ngram --json > plain.json 2> eval.err || bad "eval --no-ngram: $(cat eval.err)"
grep -q ngram_loss plain.json && bad "eval --no-ngram still has ngram_loss" || ok

# errors name the value and what was expected
expect_error() { # expect_error TEXT ARGS...: exits non-zero with TEXT on stderr
  local want=$1
  shift
  if "$ORDO" baseline "$@" > out.txt 2>&1; then bad "baseline $* succeeded"; return; fi
  grep -qF -- "$want" out.txt && ok || bad "baseline $*: no '$want' in: $(cat out.txt)"
}
expect_error "nothing.txt" nothing.txt --tokenizer byte
expect_error "--order" sonnet.txt --tokenizer byte --order 9
expect_error "--lengths '16,16'" sonnet.txt --tokenizer byte --lengths 16,16
expect_error "expected RUN_DIR or DATA" --tokenizer byte
expect_error "give one" sonnet.txt --data sonnet.txt --tokenizer byte
"$ORDO" baseline --help > help.txt 2>&1 || bad "baseline --help exited non-zero"
grep -q "Witten-Bell" help.txt && ok || bad "baseline --help: $(head -3 help.txt)"
finish test_baseline_cli
