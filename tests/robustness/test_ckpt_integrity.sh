#!/usr/bin/env bash
# Checkpoint integrity through the real CLI: a checkpoint whose data fails its checksum
# (ordo_data_xxh3), whose weights or moments are not finite, or whose metadata step differs
# from its name is skipped with `ordo: warning: skipping <path>: <why>` and the next older one
# is used, by resume, eval, sample and viz alike; the resume after a skip is byte-identical to
# one from an intact copy of the older checkpoint; a checkpoint without a checksum (an older
# ordo's) loads with one note; when every checkpoint is bad the error lists each and why.
# The damage is made python-free: od reads the header length (the first 8 bytes,
# little-endian) and the offsets, dd with conv=notrunc writes single bytes.
set -u
. "$(dirname "$0")/../lib.sh"
# expect NAME TEXT PATTERN: PATTERN (fixed string) occurs in TEXT
expect() { if grep -qF -- "$3" <<<"$2"; then ok; else bad "$1: no '$3' in: $(head -c 600 <<<"$2")"; fi; }
expect_not() { if grep -qF -- "$3" <<<"$2"; then bad "$1: unexpected '$3' in: $(head -c 600 <<<"$2")"; else ok; fi; }

# --- byte surgery
hdr_len() { od -An -t u8 -N8 "$1" | tr -d ' '; }
get_byte() { od -An -t u1 -j "$2" -N1 "$1" | tr -d ' '; }
put_byte() { printf "$(printf '\\%03o' "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# the file offset of tensor NAME's first byte: 8 + header length + its data_offsets begin
tensor_at() {
  local b
  b=$(grep -aoE "\"${2//./\\.}\":\{[^}]*\}" "$1" | sed -E 's/.*"data_offsets":\[([0-9]+),.*/\1/')
  echo $((8 + $(hdr_len "$1") + b))
}
# flips the lowest bit of the byte K bytes into the data section
flip_bit() { local at=$((8 + $(hdr_len "$1") + $2)); put_byte "$1" $at $(($(get_byte "$1" $at) ^ 1)); }
# makes float I of tensor NAME a NaN: its two high bytes (sign, exponent, top of the mantissa) 0xff
make_nan() { local at=$(($(tensor_at "$1" "$2") + 4 * $3)); put_byte "$1" $((at + 2)) 255; put_byte "$1" $((at + 3)) 255; }
# removes the checksum entries from the metadata, as an older ordo wrote it: the same header
# length, each entry (with its comma) overwritten by spaces; the header checksum's first (it
# covers the data checksum's entry)
drop_checksum() {
  local m at entry key
  for key in ordo_header_xxh3 ordo_data_xxh3; do
    m=$(grep -abo ',"'$key'":"[0-9a-f]\{16\}"' "$1")
    [ -n "$m" ] || { bad "drop_checksum: no $key entry in $1"; return; }
    at=${m%%:*} entry=${m#*:}
    printf '%*s' ${#entry} '' | dd of="$1" bs=1 seek="$at" conv=notrunc status=none
  done
}

# --- a finished run with three checkpoints (2, 4, 6) and an intact copy to compare against
tiny=(--task order --corpus-tokens 3000 --context 16 --d-model 16 --heads 2 --layers 1 --batch 4
      --steps 6 --ckpt-every 2 --keep 3 --eval-every 0 --threads 1)
"$ORDO" train "${tiny[@]}" --out "$dir/base" > /dev/null 2>&1 || { echo "FAIL: fixture run"; exit 1; }
[ "$(cd "$dir/base" && ls ckpt-*)" = "$(printf 'ckpt-2.safetensors\nckpt-4.safetensors\nckpt-6.safetensors')" ] &&
  ok || bad "fixture: checkpoints $(ls "$dir/base")"
cp -r "$dir/base" "$dir/older" && rm "$dir/older/ckpt-6.safetensors" # what step 4 gives
grep -aq '"ordo_data_xxh3":"[0-9a-f]\{16\}"' "$dir/base/ckpt-6.safetensors" && ok ||
  bad "a new checkpoint has no ordo_data_xxh3 entry"
ref_eval=$("$ORDO" eval "$dir/older" 2>&1 | tail -n +2)
# (the text: sample's stderr names its checkpoint, an "ordo: " line as the others)
ref_sample=$("$ORDO" sample "$dir/older" --prompt "cat chased" --tokens 8 2>&1 | grep -v '^ordo: ')
out=$("$ORDO" eval "$dir/base" 2>&1)
expect "intact run: no warning or note" "$out" "step 6,"
expect_not "intact run: no warning or note" "$out" "ordo: "

# run_case NAME DIR WHY: eval, sample and viz of DIR each warn that ckpt-6 is skipped (WHY in
# the reason) and use step 4: the same loss and the same sample as the run without ckpt-6
run_case() {
  local name=$1 d=$2 why=$3 out
  out=$("$ORDO" eval "$d" 2>&1)
  expect "$name: eval warns" "$out" "ordo: warning: skipping $d/ckpt-6.safetensors: $why"
  expect "$name: eval uses step 4" "$out" "step 4,"
  [ "$(tail -n +2 <<<"$(grep -v '^ordo: ' <<<"$out")")" = "$ref_eval" ] && ok ||
    bad "$name: eval's loss differs from the eval of step 4: $out"
  out=$("$ORDO" sample "$d" --prompt "cat chased" --tokens 8 2>&1)
  expect "$name: sample warns" "$out" "ordo: warning: skipping $d/ckpt-6.safetensors: $why"
  [ "$(grep -v '^ordo: ' <<<"$out")" = "$ref_sample" ] && ok ||
    bad "$name: sample differs from step 4's: $out"
  out=$("$ORDO" viz "$d" --out "$dir/viz-out" 2>&1)
  expect "$name: viz warns" "$out" "ordo: warning: skipping $d/ckpt-6.safetensors: $why"
  expect "$name: viz uses step 4" "$out" "step 4,"
  rm -rf "$dir/viz-out"
}

# resume_case NAME DAMAGE...: `train --resume` of a copy damaged by DAMAGE (run in the copy)
# warns, resumes from step 4 and ends byte-identical (cmp) to a resume of the intact copy
# without ckpt-6; both run at the same path, since the config in a checkpoint names its --out.
resume_case() {
  local name=$1 why=$2; shift 2
  local w="$dir/w/run" out rc
  rm -rf "$dir/w"; mkdir -p "$dir/w"
  cp -r "$dir/base" "$w"
  (cd "$w" && "$@")
  out=$("$ORDO" train --resume "$w" --steps 10 2>&1 >/dev/null); rc=$?
  [ $rc -eq 0 ] && ok || bad "$name: resume exit status $rc: $out"
  expect "$name: resume warns" "$out" "ordo: warning: skipping $w/ckpt-6.safetensors: $why"
  expect "$name: resume from step 4" "$out" "resuming $w from step 4"
  mv "$w" "$dir/w/damaged"
  cp -r "$dir/older" "$w"
  "$ORDO" train --resume "$w" --steps 10 > /dev/null 2>&1 || bad "$name: the intact resume failed"
  cmp "$dir/w/damaged/ckpt-10.safetensors" "$w/ckpt-10.safetensors" && ok ||
    bad "$name: the resume after the skip is not byte-identical to the intact one"
}

# 1. one flipped bit in the tensor data of the newest checkpoint
cp -r "$dir/base" "$dir/flip"
flip_bit "$dir/flip/ckpt-6.safetensors" 1000
run_case "bit flip" "$dir/flip" "checksum mismatch"
resume_case "bit flip" "checksum mismatch" flip_bit ckpt-6.safetensors 1000

# 2. a weight made NaN (exponent bytes 0xff): the checksum catches it
cp -r "$dir/base" "$dir/nan"
make_nan "$dir/nan/ckpt-6.safetensors" h.0.attn.c_attn.weight 5
run_case "NaN weight" "$dir/nan" "checksum mismatch"

# 3. the same without a checksum (an older ordo's file): the finiteness check catches it,
# and resume tries the older checkpoint instead of failing on the NaN at every retry. The NaN
# in a moment of the tensor loaded last leaves the model loaded from the bad file before the
# failure; the older checkpoint must overwrite all of it (the cmp).
cp -r "$dir/base" "$dir/nan_old"
drop_checksum "$dir/nan_old/ckpt-6.safetensors"
make_nan "$dir/nan_old/ckpt-6.safetensors" wte.weight 3
run_case "NaN weight, no checksum" "$dir/nan_old" "tensor wte.weight holds NaN at index 3"
nan_moment() { drop_checksum ckpt-6.safetensors; make_nan ckpt-6.safetensors optim.v.ln_f.bias 0; }
resume_case "NaN moment, no checksum" "tensor optim.v.ln_f.bias holds NaN at index 0" nan_moment
wte_nan() { drop_checksum ckpt-6.safetensors; make_nan ckpt-6.safetensors wte.weight 3; }
resume_case "NaN weight, no checksum" "tensor wte.weight holds NaN at index 3" wte_nan

# 4. a checkpoint renamed to another step: ckpt-4's file as ckpt-8, the newest by its name
cp -r "$dir/base" "$dir/renamed"
cp "$dir/base/ckpt-4.safetensors" "$dir/renamed/ckpt-8.safetensors"
out=$("$ORDO" eval "$dir/renamed" 2>&1)
expect "renamed: eval warns" "$out" "ordo: warning: skipping $dir/renamed/ckpt-8.safetensors: its metadata says step 4, its name step 8"
expect "renamed: eval uses step 6" "$out" "step 6,"
out=$("$ORDO" train --resume "$dir/renamed" --steps 8 2>&1 >/dev/null)
expect "renamed: resume warns" "$out" "skipping $dir/renamed/ckpt-8.safetensors: its metadata says step 4"
expect "renamed: resume from step 6" "$out" "resuming $dir/renamed from step 6"

# 5. no checksum at all (an older ordo's checkpoint): loads, with one note
cp -r "$dir/base" "$dir/nosum"
drop_checksum "$dir/nosum/ckpt-6.safetensors"
note="ordo: note: $dir/nosum/ckpt-6.safetensors has no checksum (written by an older ordo?); loading it unchecked"
out=$("$ORDO" eval "$dir/nosum" 2>&1)
expect "no checksum: eval notes" "$out" "$note"
expect "no checksum: eval uses step 6" "$out" "step 6,"
expect_not "no checksum: eval does not skip" "$out" "warning"
out=$("$ORDO" train --resume "$dir/nosum" --steps 8 2>&1 >/dev/null); rc=$?
[ $rc -eq 0 ] && ok || bad "no checksum: resume exit status $rc: $out"
[ "$(grep -cF -- "$note" <<<"$out")" = 1 ] && ok || bad "no checksum: resume printed the note $(grep -cF -- "$note" <<<"$out") times: $out"
expect "no checksum: resume from step 6" "$out" "resuming $dir/nosum from step 6"
grep -aq '"ordo_data_xxh3"' "$dir/nosum/ckpt-8.safetensors" && ok || bad "no checksum: the resumed run's checkpoint has none"
out=$("$ORDO" train "${tiny[@]}" --steps 2 --init "$dir/nosum/ckpt-6.safetensors" --out "$dir/init_nosum" 2>&1 >/dev/null)
expect "no checksum: --init notes" "$out" "ordo: note: $dir/nosum/ckpt-6.safetensors has no checksum"

# 6. every checkpoint bad: a clear error listing each and why, the run left as it was
cp -r "$dir/base" "$dir/allbad"
flip_bit "$dir/allbad/ckpt-6.safetensors" 77
make_nan "$dir/allbad/ckpt-4.safetensors" wpe.weight 0
flip_bit "$dir/allbad/ckpt-2.safetensors" 0
sums=$(cd "$dir/allbad" && sha256sum ./*)
for cmd in eval sample viz resume; do
  case $cmd in
    eval) out=$("$ORDO" eval "$dir/allbad" 2>&1); rc=$? ;;
    sample) out=$("$ORDO" sample "$dir/allbad" --prompt cat 2>&1); rc=$? ;;
    viz) out=$("$ORDO" viz "$dir/allbad" --out "$dir/viz-out" 2>&1); rc=$? ;;
    resume) out=$("$ORDO" train --resume "$dir/allbad" --steps 8 2>&1); rc=$? ;;
  esac
  [ $rc -ne 0 ] && [ $rc -lt 128 ] && ok || bad "all bad: $cmd exit status $rc"
  err=$(grep -v '^ordo: warning: ' <<<"$out")
  expect "all bad: $cmd error" "$err" "none of its 3 checkpoint(s) could be"
  for s in 6 4 2; do
    expect "all bad: $cmd lists ckpt-$s" "$err" "  $dir/allbad/ckpt-$s.safetensors: checksum mismatch"
  done
done
[ "$sums" = "$(cd "$dir/allbad" && sha256sum ./*)" ] && ok || bad "all bad: the run directory changed"

finish
