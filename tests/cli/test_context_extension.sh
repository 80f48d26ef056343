#!/usr/bin/env bash
# Context extension via the CLI: a checkpoint trained at T = 64 is taken to T = 256 with each
# method (a learned table interpolated or given fresh rows; rope unchanged, pi, ntk, yarn),
# evaluated at 256, and the extended run resumed bit for bit. config.json records where the
# weights came from (file, run, step, context, the sha256 that sha256sum prints), the scaling
# is in the checkpoint's flat metadata, eval may score a run with a scaling it was not trained
# with and says which it used, and a changed --init file is refused when a run restarts.
set -u
. "$(dirname "$0")/../lib.sh"
EQUAL=$BUILD/test_train_resume
key() { # key FILE KEY: the JSON value of a top-level key of config.json (one line)
  python3 -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2]); print(json.dumps(v, sort_keys=True))' "$1" "$2"
}

model=(--d-model 32 --heads 2 --layers 1 --batch 4 --corpus-tokens 20000 --eval-every 0
       --threads 1 --log-every 5)
for p in learned rope; do
  "$ORDO" train "${model[@]}" --pos $p --context 64 --steps 30 --ckpt-every 10 --out "$dir/${p}64" \
    > "$dir/$p.log" 2>&1 || bad "training $p at 64 failed: $(tail -2 "$dir/$p.log")"
done

# 1. extension to 256 with each method; config.json says where the weights came from
ext=(train "${model[@]}" --context 256 --steps 10 --ckpt-every 5 --lr 3e-4 --warmup 0)
declare -A how=([interp]="--pos learned --init $dir/learned64"
                [fresh]="--pos learned --extend-pos fresh --init $dir/learned64"
                [none]="--pos rope --init $dir/rope64"
                [pi]="--pos rope --rope-scaling pi --init $dir/rope64"
                [ntk]="--pos rope --rope-scaling ntk --init $dir/rope64"
                [yarn]="--pos rope --rope-scaling yarn --init $dir/rope64/ckpt-20.safetensors")
for m in interp fresh none pi ntk yarn; do
  # shellcheck disable=SC2086
  "$ORDO" "${ext[@]}" ${how[$m]} --out "$dir/x_$m" > "$dir/x_$m.log" 2>&1 || bad "extension $m failed: $(tail -2 "$dir/x_$m.log")"
done
sha_l=$(sha256sum "$dir/learned64/ckpt-30.safetensors" | cut -c1-64)
sha_r=$(sha256sum "$dir/rope64/ckpt-30.safetensors" | cut -c1-64)
sha_r20=$(sha256sum "$dir/rope64/ckpt-20.safetensors" | cut -c1-64)
[ "$(key "$dir/x_interp/config.json" init_from)" = "{\"context\": 64, \"file\": \"$dir/learned64/ckpt-30.safetensors\", \"run\": \"$dir/learned64\", \"sha256\": \"$sha_l\", \"step\": 30}" ] \
  && ok || bad "init_from of the interpolated run: $(key "$dir/x_interp/config.json" init_from)"
[ "$(key "$dir/x_yarn/config.json" init_from)" = "{\"context\": 64, \"file\": \"$dir/rope64/ckpt-20.safetensors\", \"run\": \"$dir/rope64\", \"sha256\": \"$sha_r20\", \"step\": 20}" ] \
  && ok || bad "init_from of --init RUN/ckpt-20: $(key "$dir/x_yarn/config.json" init_from)"
grep -q "\"sha256\": \"$sha_r\"" "$dir/x_ntk/config.json" && ok || bad "x_ntk's init_from lacks sha256sum's digest"
grep -q 'the learned table goes from 64 to 256 positions (interpolate)' "$dir/x_interp.log" && ok || bad "no note of the interpolated table"
grep -q 'the learned table goes from 64 to 256 positions (fresh)' "$dir/x_fresh.log" && ok || bad "no note of the fresh rows"
# the scaling's numbers, resolved: factor 256/64 = 4 over the original context 64
for m in pi ntk yarn; do
  [ "$(key "$dir/x_$m/config.json" rope-scaling)" = "\"$m\"" ] && [ "$(key "$dir/x_$m/config.json" rope-factor)" = "4.0" ] \
    && [ "$(key "$dir/x_$m/config.json" rope-orig-context)" = "64" ] && ok || bad "x_$m: scaling keys in config.json"
  head -c 4096 "$dir/x_$m/ckpt-10.safetensors" | grep -aq "\"rope_scaling\":\"$m\",\"rope_factor\":\"4\",\"rope_orig_context\":\"64\"" \
    && ok || bad "x_$m: the checkpoint's flat metadata lacks the scaling"
done
head -c 4096 "$dir/x_none/ckpt-10.safetensors" | grep -aq '"rope_scaling"' && bad "an unscaled checkpoint should not carry rope_scaling" || ok
# starting from trained weights: the first loss is that of a trained model, not of a new one
first() { head -1 "$1/metrics.jsonl" | sed 's/.*"train_loss":\([0-9.e+-]*\).*/\1/'; }
"$ORDO" train "${model[@]}" --pos rope --context 256 --steps 5 --ckpt-every 5 --out "$dir/scratch" > /dev/null 2>&1
awk -v a="$(first "$dir/x_none")" -v b="$(first "$dir/scratch")" 'BEGIN { exit !(a < b - 0.05) }' && ok \
  || bad "the extended run's first loss $(first "$dir/x_none") is not below a new run's $(first "$dir/scratch")"

# 2. eval at 256 of every extended run, with the scaling it trained with
for m in interp fresh none pi ntk yarn; do
  out=$("$ORDO" eval "$dir/x_$m" --context 256 --max-windows 8 --json 2>&1)
  python3 -c 'import json,sys; r=json.loads(sys.argv[1]); v=r["results"][0]["val_loss"]; sys.exit(0 if v is not None and v < 4 else 1)' "$out" \
    && ok || bad "eval of x_$m at 256: $(head -3 <<<"$out")"
done
out=$("$ORDO" eval "$dir/x_yarn" --max-windows 4 --json)
[ "$(python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])["rope_scaling"], sort_keys=True))' "$out")" = \
  '{"factor": 4.0, "original_context": 64, "scaling": "yarn", "source": "run"}' ] && ok || bad "eval json of x_yarn: rope_scaling"
"$ORDO" eval "$dir/x_yarn" --max-windows 4 | grep -q "^rope scaling yarn, factor 4, original context 64 (the run's)" && ok || bad "eval table lacks the run's scaling"

# 3. eval of the 64 run with a scaling it was not trained with
"$ORDO" eval --rope-scaling yarn --rope-factor 4 "$dir/rope64" --context 256 --max-windows 8 --json > "$dir/ev_yarn.json" 2>&1 || bad "eval with yarn failed: $(head -3 "$dir/ev_yarn.json")"
"$ORDO" eval "$dir/rope64" --context 256 --max-windows 8 --json > "$dir/ev_none.json" 2>&1 || bad "plain eval failed"
python3 - "$dir/ev_yarn.json" "$dir/ev_none.json" <<'PY' && ok || bad "eval --rope-scaling yarn: report"
import json, sys
y, n = (json.load(open(f)) for f in sys.argv[1:3])
assert y["rope_scaling"] == {"scaling": "yarn", "factor": 4.0, "original_context": 64, "source": "eval"}, y["rope_scaling"]
assert n["rope_scaling"]["scaling"] == "none" and n["rope_scaling"]["source"] == "run"
ly, ln_ = y["results"][0]["val_loss"], n["results"][0]["val_loss"]
assert ly is not None and ln_ is not None and ly != ln_, (ly, ln_)
PY
"$ORDO" eval --rope-scaling yarn --rope-factor 4 "$dir/rope64" --context 256 --max-windows 8 | \
  grep -q "^rope scaling yarn, factor 4, original context 64 (given to eval)" && ok || bad "eval table lacks the given scaling"
# the automatic factor: the longest length over the training context (512 / 64 = 8)
"$ORDO" eval --rope-scaling pi "$dir/rope64" --context 128,512 --max-windows 2 | grep -q "^rope scaling pi, factor 8, original context 64" \
  && ok || bad "eval --rope-scaling pi without a factor should take 512/64 = 8"
# none on a scaled run: its rotation unscaled
"$ORDO" eval --rope-scaling none "$dir/x_pi" --max-windows 2 | grep -q "^rope scaling none (given to eval)" && ok || bad "eval --rope-scaling none on a pi run"

# 4. the extended runs resume bit for bit (learned with fresh rows, rope with yarn)
for m in fresh yarn; do
  # shellcheck disable=SC2086
  "$ORDO" "${ext[@]}" ${how[$m]} --stop-after 5 --out "$dir/r_$m" > /dev/null 2>&1
  [ $? -eq 130 ] && ok || bad "$m: --stop-after should exit 130"
  "$ORDO" train --resume "$dir/r_$m" > "$dir/r_$m.log" 2>&1 || bad "resume of r_$m failed: $(tail -2 "$dir/r_$m.log")"
  "$EQUAL" --equal "$dir/x_$m/ckpt-10.safetensors" "$dir/r_$m/ckpt-10.safetensors" && ok || bad "$m: 5 + resume 5 differs from 10 straight"
  cmp -s <(grep -v '"out"' "$dir/x_$m/config.json") <(grep -v '"out"' "$dir/r_$m/config.json") && ok || bad "$m: config.json changed on resume"
done

# 5. a run that restarts from config.json (no checkpoint yet) reads its --init again: the
# same file, or a refusal when it changed
cp "$dir/learned64/ckpt-20.safetensors" "$dir/w.safetensors"
"$ORDO" "${ext[@]}" --pos learned --init "$dir/w.safetensors" --steps 2 --out "$dir/re" > /dev/null 2>&1 || bad "run from a copied file failed"
grep -q '"run": null' "$dir/re/config.json" && grep -q '"step": 20' "$dir/re/config.json" && ok || bad "a file outside a run: run null, its own step"
rm "$dir"/re/ckpt-*.safetensors
"$ORDO" train --resume "$dir/re" > "$dir/re.log" 2>&1 && ok || bad "restart from config.json failed: $(tail -2 "$dir/re.log")"
rm "$dir"/re/ckpt-*.safetensors
cp "$dir/learned64/ckpt-30.safetensors" "$dir/w.safetensors"
out=$("$ORDO" train --resume "$dir/re" 2>&1); rc=$?
[ $rc -ne 0 ] && grep -qF "w.safetensors changed since the run recorded it (sha256 " <<<"$out" && ok || bad "a changed --init file: rc $rc: $out"

# 6. --init RUN passes over a damaged newest checkpoint, with a warning, as eval does
cp -r "$dir/learned64" "$dir/dmg"
truncate -s 1000 "$dir/dmg/ckpt-30.safetensors"
"$ORDO" "${ext[@]}" --pos learned --init "$dir/dmg" --steps 1 --out "$dir/from_dmg" > "$dir/dmg.log" 2>&1 || bad "--init from a run with a damaged checkpoint failed: $(tail -2 "$dir/dmg.log")"
grep -q "ordo: warning: skipping $dir/dmg/ckpt-30.safetensors" "$dir/dmg.log" && grep -q '"step": 20' "$dir/from_dmg/config.json" \
  && ok || bad "--init should skip the damaged ckpt-30 and start from ckpt-20: $(head -2 "$dir/dmg.log")"

# 7. documented in --help
h=$("$ORDO" train --help); he=$("$ORDO" eval --help)
for o in "--rope-scaling S" "--rope-factor X" "--rope-orig-context N" "--extend-pos S"; do
  grep -qF -- "$o" <<<"$h" && ok || bad "train --help lacks $o"
done
for o in "--rope-scaling S" "--rope-factor X" "--rope-orig-context N"; do
  grep -qF -- "$o" <<<"$he" && ok || bad "eval --help lacks $o"
done
grep -q "none | pi | ntk | yarn" <<<"$h" && grep -q "interpolate | fresh" <<<"$h" && ok || bad "train --help lacks the choices"

# 8. eval of a learned run past its table with the table grown (--extend-pos), as train --init
# grows it (test_eval_extend checks the losses bit for bit against the --init model); lengths
# within the table use it as it is; the report says which method and table; --save keeps it
# as the record extend-<method>
"$ORDO" eval "$dir/learned64" --context 64,128,256 --max-windows 4 --json > "$dir/ev_plain.json" 2>&1 || bad "plain learned eval failed"
for m in interpolate fresh; do
  "$ORDO" eval "$dir/learned64" --context 64,128,256 --max-windows 4 --extend-pos $m --json > "$dir/ev_$m.json" 2>&1 \
    || bad "eval --extend-pos $m failed: $(head -3 "$dir/ev_$m.json")"
done
python3 - "$dir/ev_plain.json" "$dir/ev_interpolate.json" "$dir/ev_fresh.json" "$(key "$dir/learned64/config.json" seed)" <<'PY' && ok || bad "eval --extend-pos: report"
import json, sys
p, i, f = (json.load(open(x)) for x in sys.argv[1:4])
seed = int(sys.argv[4])
assert "extend_pos" not in p and p["results"][1]["val_loss"] is None, p["results"][1]
assert i["extend_pos"] == {"method": "interpolate", "table": 64, "source": "eval"}, i["extend_pos"]
assert f["extend_pos"] == {"method": "fresh", "table": 64, "source": "eval", "seed": seed}, f["extend_pos"]
for r, m in ((i, "interpolate"), (f, "fresh")):
    rows = r["results"]
    assert "extend_pos" not in rows[0] and rows[0]["val_loss"] == p["results"][0]["val_loss"], rows[0]
    for row, T in zip(rows[1:], (128, 256)):
        assert row["extend_pos"] == {"method": m, "table": 64, "grown_to": T}, row
        assert row["val_loss"] is not None and row["val_loss"] < 5 and len(row["loss_by_position"]) == T, row["val_loss"]
assert i["results"][1]["val_loss"] != f["results"][1]["val_loss"]
PY
out=$("$ORDO" eval "$dir/learned64" --context 64,128 --max-windows 2 --extend-pos interpolate)
grep -q "^learned table of 64 positions, grown past them by interpolate (given to eval)" <<<"$out" \
  && grep -qE "^ +128 +[0-9.]+ .*\(table grown\)$" <<<"$out" && ! grep -qE "^ +64 .*table grown" <<<"$out" \
  && ok || bad "eval table with --extend-pos: $out"
"$ORDO" eval "$dir/learned64" --context 128 --max-windows 2 | grep -qF "(past the learned table (T_max 64); --extend-pos interpolate|fresh|copy grows it)" \
  && ok || bad "eval past the table should point to --extend-pos"
# --save keeps it as a record of its own, never as the run's base eval
out=$("$ORDO" eval "$dir/learned64" --context 128 --max-windows 2 --extend-pos interpolate --save 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q '"extension": "interpolate"' "$dir/learned64/eval/extend-interpolate.json" \
  && [ ! -e "$dir/learned64/eval.json" ] && [ ! -e "$dir/learned64/eval/base.json" ] \
  && ok || bad "eval --extend-pos --save should write eval/extend-interpolate.json alone: rc $rc: $out"
"$ORDO" eval --help | grep -qF -- "--extend-pos S" && ok || bad "eval --help lacks --extend-pos S"

# 9. dynamic NTK (Peng et al. B.3) at eval: unscaled at the training length, scaled past it, its
# record dynamic-ntk-x1 (HF's factor 1, not base); a sweep takes it as a variant (its numbers
# against PyTorch: test_gpt_parity's gpt_rope_dynntk* fixtures)
cp -r "$dir/rope64" "$dir/dyn" && rm -f "$dir/dyn/.lock"
"$ORDO" eval "$dir/dyn" --context 64,256 --json > "$dir/dyn_base.json" 2>/dev/null || bad "eval dyn base"
"$ORDO" eval "$dir/dyn" --context 64,256 --rope-scaling dynamic-ntk --save --json > "$dir/dyn_ntk.json" 2>/dev/null \
  && [ -f "$dir/dyn/eval/dynamic-ntk-x1.json" ] || bad "eval --rope-scaling dynamic-ntk --save: $(ls "$dir/dyn/eval" 2>&1)"
python3 - "$dir/dyn_base.json" "$dir/dyn_ntk.json" <<'PY' && ok || bad "dynamic-ntk: the same loss at 64, another at 256"
import json, sys
b, d = (json.load(open(f))["results"] for f in sys.argv[1:3])
sys.exit(0 if b[0]["val_loss"] == d[0]["val_loss"] and b[1]["val_loss"] != d[1]["val_loss"] else 1)
PY
# YaRN's ramp and temperature at eval: another record (yarn-x4-b8-notemp), its request and
# rope_scaling say so, and they score otherwise than the paper's yarn
"$ORDO" eval "$dir/dyn" --context 64,256 --rope-scaling yarn --save > /dev/null 2>&1 \
  && "$ORDO" eval "$dir/dyn" --context 64,256 --rope-scaling yarn --yarn-beta 8 --yarn-no-temperature --save > /dev/null 2>&1 \
  && [ -f "$dir/dyn/eval/yarn-x4.json" ] && [ -f "$dir/dyn/eval/yarn-x4-b8-notemp.json" ] \
  || bad "eval --rope-scaling yarn --yarn-beta 8 --yarn-no-temperature --save: $(ls "$dir/dyn/eval")"
python3 - "$dir/dyn/eval/yarn-x4.json" "$dir/dyn/eval/yarn-x4-b8-notemp.json" <<'PY' && ok || bad "the yarn options' record"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ok = b["rope_scaling"]["yarn_beta"] == 8 and b["rope_scaling"]["yarn_temperature"] == 0 \
    and b["request"]["yarn_beta"] == 8 and "yarn_beta" not in a["rope_scaling"] \
    and a["results"][1]["val_loss"] != b["results"][1]["val_loss"]
sys.exit(0 if ok else 1)
PY
out=$("$ORDO" eval "$dir/dyn" --yarn-alpha 2 2>&1) && bad "--yarn-alpha without yarn accepted" \
  || { grep -qF -- "--yarn-alpha goes with --rope-scaling yarn" <<<"$out" && ok || bad "--yarn-alpha alone: $out"; }
out=$("$ORDO" sweep --pos rope --eval-variants base,dynamic-ntk:0.5 --out "$dir/swdyn" 2>&1) \
  && bad "dynamic-ntk:0.5 accepted" || { grep -qF "'dynamic-ntk:0.5' is not a variant" <<<"$out" && ok || bad "dynamic-ntk:0.5: $out"; }

# 10. --extend-pos copy (Longformer's init, Beltagy et al. 2020: the old rows repeated, row t =
# row t mod T0): train --init notes it; eval at the table's own length scores exactly as base
# (the rows are the table's), past it a number; --save keeps the record extend-copy (no seed:
# nothing is drawn); a sweep makes the variant extend:copy. PyTorch: test_gpt_parity's
# gpt_learned_ext16_copy_T40
"$ORDO" train "${model[@]}" --pos learned --context 256 --steps 1 --init "$dir/learned64" --extend-pos copy \
  --out "$dir/x_copy" > "$dir/x_copy.log" 2>&1 || bad "extension copy failed: $(tail -2 "$dir/x_copy.log")"
grep -q 'the learned table goes from 64 to 256 positions (copy)' "$dir/x_copy.log" && ok || bad "no note of the copied table"
cp -r "$dir/learned64" "$dir/lc" && rm -rf "$dir/lc/eval" "$dir/lc/eval.json" "$dir/lc/.lock"
"$ORDO" eval "$dir/lc" --context 64,128 --max-windows 4 --extend-pos copy --save --json > "$dir/ev_copy.json" 2>&1 \
  || bad "eval --extend-pos copy --save failed: $(head -3 "$dir/ev_copy.json")"
python3 - "$dir/ev_plain.json" "$dir/ev_copy.json" "$dir/lc/eval/extend-copy.json" "$dir/ev_interpolate.json" <<'PY' && ok || bad "eval --extend-pos copy: report"
import json, sys
p, c, rec, i = (json.load(open(x)) for x in sys.argv[1:5])
assert c["extend_pos"] == {"method": "copy", "table": 64, "source": "eval"}, c["extend_pos"]
assert "extend_pos" not in c["results"][0] and c["results"][0]["val_loss"] == p["results"][0]["val_loss"], c["results"][0]
assert c["results"][1]["extend_pos"] == {"method": "copy", "table": 64, "grown_to": 128}, c["results"][1]
assert c["results"][1]["val_loss"] is not None and c["results"][1]["val_loss"] != i["results"][1]["val_loss"]
assert rec["name"] == "extend-copy" and rec["variant"]["extension"] == "copy", (rec["name"], rec["variant"])
PY
[ ! -e "$dir/lc/eval.json" ] && [ "$(ls "$dir/lc/eval")" = extend-copy.json ] && ok || bad "eval --extend-pos copy --save: $(ls "$dir/lc" "$dir/lc/eval")"
grep -qF "interpolate | fresh | copy" <<<"$h" && ok || bad "train --help lacks copy"
"$ORDO" sweep --tokenizer byte --d-model 16 --layers 1 --heads 2 --context 16 --steps 4 --corpus-tokens 3000 \
  --eval-every 0 --threads 1 --pos learned --seeds 1 --eval-lengths 1,2 --eval-variants base,extend:copy \
  --out "$dir/swc" > "$dir/swc.out" 2>&1 || bad "sweep with extend:copy failed: $(tail -3 "$dir/swc.out")"
[ "$(ls "$dir/swc/learned-s1/eval")" = "$(printf 'base.json\nextend-copy.json')" ] && ok || bad "sweep extend:copy records: $(ls "$dir/swc/learned-s1/eval")"

finish
