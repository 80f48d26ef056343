#!/usr/bin/env bash
# The bad-input catalogue: everything a user can get wrong, run through the real `ordo` CLI.
# Each case must exit non-zero but not by a signal (status 1..127), print a message naming
# the problem (a distinctive substring per case), leave every existing run and input file
# byte-identical (a checksum of all of $dir/runs and $dir/data before and after), and not
# create the --out it was given. The few cases meant to write say so and check what they
# must. Cases already in test_cli.sh, test_tokenize_cli.sh and test_train_cli.sh are not
# repeated here (e.g. --heads 3 with --d-model 64, a missing --resume dir, --decode 256).
#
# Read-only and full output dirs need root (a read-only bind mount, a small tmpfs); without
# it the read-only cases run as user nobody (setpriv) when that is possible, and the full-disk
# cases are skipped with a message.
set -u
. "$(dirname "$0")/../lib.sh"
VOCAB=${ORDO_VOCAB_DIR:-.cache/gpt2}
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT

# Every file under the guarded dirs, names and contents, as one checksum.
snapshot() {
  (cd "$dir" && find runs data -printf '%y %m %p\n' | sort
   find runs data -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum
}

# check NAME PATTERN CMD...: non-zero exit below 128, PATTERN in the output, nothing
# guarded changed, $dir/fresh not created
check() {
  local name=$1 pat=$2; shift 2
  local before after out rc
  before=$(snapshot)
  out=$(cd "$dir" && timeout 120 "$@" 2>&1 </dev/null); rc=$?
  after=$(snapshot)
  if [ $rc -eq 0 ] || [ $rc -ge 124 ]; then
    bad "$name: exit status $rc (want 1..123): $(head -3 <<<"$out")"
  elif ! grep -qF -- "$pat" <<<"$out"; then
    bad "$name: output lacks '$pat': $(head -3 <<<"$out")"
  elif [ "$before" != "$after" ]; then
    bad "$name: changed files under runs/ or data/"
  elif [ -e "$dir/fresh" ]; then
    bad "$name: created its --out"; rm -rf "$dir/fresh"
  else
    ok
  fi
}

# --- fixtures: two small finished runs (learned, rope) and some input files
mkdir -p "$dir/runs" "$dir/data" "$dir/work"
tiny=(--task order --corpus-tokens 3000 --context 16 --d-model 16 --heads 2 --layers 1 --batch 4
      --steps 4 --ckpt-every 2 --keep 5 --eval-every 0 --threads 1)
"$ORDO" train "${tiny[@]}" --out "$dir/runs/good" > /dev/null 2>&1 || { echo "FAIL: fixture run"; exit 1; }
"$ORDO" train "${tiny[@]}" --pos rope --out "$dir/runs/rope" > /dev/null 2>&1 || { echo "FAIL: fixture run"; exit 1; }
mkdir -p "$dir/runs/empty"                                      # no checkpoint, no config.json
cp -r "$dir/runs/good" "$dir/runs/alltrunc"                     # every checkpoint truncated
truncate -s 100 "$dir/runs/alltrunc/ckpt-2.safetensors"
truncate -s 3000 "$dir/runs/alltrunc/ckpt-4.safetensors"
cp -r "$dir/runs/good" "$dir/runs/foreign"                      # checkpoints of the rope run
cp "$dir/runs/rope"/ckpt-*.safetensors "$dir/runs/foreign/"
printf 'abc' > "$dir/data/small.txt"
: > "$dir/data/empty.txt"
head -c 4096 /dev/urandom > "$dir/data/binary.dat"; printf '\0' >> "$dir/data/binary.dat"
printf 'the cat sat on the mat. %.0s' $(seq 1 200) > "$dir/data/text.txt"
echo '{"steps": 5,' > "$dir/data/broken.json"
echo '{"stepz": 5}' > "$dir/data/unknown.json"
echo '{"steps": "many"}' > "$dir/data/type.json"
echo '{"steps": 5, "steps": 6}' > "$dir/data/dup.json"
mkdir -p "$dir/data/bert" "$dir/data/zero"                      # vocab dirs of other tokenizers
printf '{"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "the": 3}' > "$dir/data/bert/encoder.json"
printf '#version: 0.2\nt h\n' > "$dir/data/bert/vocab.bpe"
ln -s /dev/zero "$dir/data/zero/encoder.json"
ln -s /dev/zero "$dir/data/zero/vocab.bpe"
touch "$dir/data/plainfile"
F="$dir/fresh"
G="$dir/runs/good"

# --- command line
check "unknown train flag"       "unknown option '--frobnicate'" "$ORDO" train --frobnicate 3 --out "$F"
check "unknown eval flag"        "unknown option '--bogus'"      "$ORDO" eval "$G" --bogus
check "unknown sample flag"      "unknown option '--temp'"       "$ORDO" sample "$G" --temp 1
check "short option"             "unknown option '-s'"           "$ORDO" train -s 5 --out "$F"
check "missing value at end"     "--steps needs a value"         "$ORDO" train --out "$F" --steps
check "flag given a value"       "--no-decay-pos takes no value" "$ORDO" train --no-decay-pos=1 --out "$F"
check "stray argument"           "unexpected argument 'extra'"   "$ORDO" train extra --out "$F"
check "malformed integer"        "'12abc' is not an integer"     "$ORDO" train --steps 12abc --out "$F"
check "integer overflow"         "is not an integer"             "$ORDO" train --steps 99999999999999999999 --out "$F"
check "NaN learning rate"        "'nan' is not a finite number"  "$ORDO" train --lr nan --out "$F"
check "negative d-model"         "--d-model is -8, expected 1.." "$ORDO" train --d-model -8 --out "$F"
check "zero batch"               "--batch is 0, expected 1.."    "$ORDO" train --batch 0 --out "$F"
check "zero layers"              "--layers is 0, expected 1.."   "$ORDO" train --layers 0 --out "$F"
check "zero context"             "--context is 0, expected 1.."  "$ORDO" train --context 0 --out "$F"
check "zero steps"               "--steps is 0, expected 1.."    "$ORDO" train --steps 0 --out "$F"
check "negative threads"         "--threads is -1"               "$ORDO" train --threads -1 --out "$F"
check "keep zero checkpoints"    "--keep is 0"                   "$ORDO" train --keep 0 --out "$F"
check "val-frac 1"               "--val-frac is 1, expected strictly between 0 and 1" "$ORDO" train --val-frac 1 --out "$F"
check "empty --out"              "--out is empty"                "$ORDO" train --out ""
check "unknown tokenizer"        "--tokenizer: unknown tokenizer 'bpe' (expected byte or gpt2)" "$ORDO" train --tokenizer bpe --out "$F"
check "unknown task"             "--task: unknown task 'sort' (expected order, copy, reverse, passkey, mqar, flipflop, add, selective-copy or count)" "$ORDO" train --task sort --out "$F"
check "heads not dividing"       "--heads 4 does not divide --d-model 30" "$ORDO" train --d-model 30 --heads 4 --out "$F"
check "odd head dim with rope"   "even head size, but d-model/heads = 30/2 = 15" "$ORDO" train --pos rope --d-model 30 --heads 2 --out "$F"
check "odd d-model sinusoidal"   "needs an even --d-model, got 15" "$ORDO" train --pos sinusoidal --d-model 15 --heads 3 --out "$F"
check "terabytes of attention"   "of memory on this machine"     "$ORDO" train --corpus-tokens 2000000 --context 65536 --pos alibi --heads 256 --d-model 256 --layers 1 --batch 1 --out "$F"
check "eval context garbage"     "expected positive lengths like 64,128" "$ORDO" eval "$G" --context 32,abc
# a length named twice would be scored and reported twice (it was)
check "eval context twice"       "--context '64,32,64': 64 is named twice" "$ORDO" eval "$G" --context 64,32,64
check "sample negative tokens"   "--tokens is -1, expected 0.."  "$ORDO" sample "$G" --tokens -1 --prompt the
check "sample unknown word"      "'zebra' is not a word of the order corpus" "$ORDO" sample "$G" --prompt zebra

# --- data files
check "context larger than data" "one window of max_length 64 needs at least 65" "$ORDO" train --data data/small.txt --tokenizer byte --context 64 --out "$F"
check "empty data file"          "the data file is empty"        "$ORDO" train --data data/empty.txt --tokenizer byte --out "$F"
check "binary data file"         "not a text file (a NUL byte at offset" "$ORDO" train --data data/binary.dat --tokenizer byte --out "$F"
check "data is a directory"      "is a directory"                "$ORDO" train --data data --tokenizer byte --out "$F"
check "data file missing"        "nope.txt: cannot open: No such file" "$ORDO" train --data data/nope.txt --tokenizer byte --out "$F"
check "vocab of another tokenizer" "entries, expected 50257"     "$ORDO" train --data data/text.txt --tokenizer gpt2 --vocab data/bert --out "$F"
check "vocab files are /dev/zero" "encoder.json: is a character device, expected a regular file" "$ORDO" tokenize --vocab data/zero data/text.txt
check "vocab dir missing"        "run data/fetch.sh vocab, or pass --vocab DIR" "$ORDO" train --data data/text.txt --vocab data/novocab --out "$F"
check "passkey without the vocab" "encoder.json: No such file or directory (run data/fetch.sh vocab, or pass --vocab DIR or set ORDO_VOCAB_DIR" "$ORDO" train --task passkey --vocab data/novocab --out "$F"
if [ -f "$VOCAB/encoder.json" ] && [ -f "$VOCAB/vocab.bpe" ]; then
  mkdir -p "$dir/data/swapped"
  cp "$VOCAB/encoder.json" "$dir/data/swapped/"
  # the merges of another vocabulary: same format, lines 2 and 3 in another order
  awk 'NR==2 {l=$0; next} NR==3 {print; print l; next} {print}' "$VOCAB/vocab.bpe" > "$dir/data/swapped/vocab.bpe"
  check "merges of another vocab" "do not belong together"       "$ORDO" train --data data/text.txt --vocab data/swapped --out "$F"
else
  echo "SKIP: merges of another vocab (no gpt2 vocab in $VOCAB)"; skip=$((skip+1))
fi

# --- --config files
check "corrupt config JSON"      "broken.json: line 2:"          "$ORDO" train --config data/broken.json --out "$F"
check "unknown config key"       "unknown key \"stepz\""         "$ORDO" train --config data/unknown.json --out "$F"
check "config value of wrong type" "\"steps\" must be an integer" "$ORDO" train --config data/type.json --out "$F"
check "duplicate config key"     "duplicate object key"          "$ORDO" train --config data/dup.json --out "$F"
check "config file missing"      "data/nope.json: cannot open: No such file or directory" "$ORDO" train --config data/nope.json --out "$F"
check "config with resume"       "--config and --resume do not go together" "$ORDO" train --config data/unknown.json --resume "$G"

# --- --init weights
# (the file's settings are compared, by option, before its tensors are read)
check "init with wrong shapes"   "has d-model 16 (metadata \"C\") but this run --d-model 32; only --context may differ" "$ORDO" train "${tiny[@]}" --d-model 32 --init runs/good/ckpt-4.safetensors --out "$F"
check "init of another scheme"   "was trained with --pos rope but this run has --pos learned"   "$ORDO" train "${tiny[@]}" --init runs/rope/ckpt-4.safetensors --out "$F"
check "init from a text file"    "too short for the 8-byte header length" "$ORDO" train "${tiny[@]}" --init data/small.txt --out "$F"
check "init file missing"        "cannot open"                   "$ORDO" train "${tiny[@]}" --init data/none.safetensors --out "$F"

# --- resuming and reading runs
check "resume without checkpoint or config" "no usable checkpoint and no readable config.json" "$ORDO" train --resume runs/empty
check "resume, every checkpoint truncated" "none of its 2 checkpoint(s) could be loaded" "$ORDO" train --resume runs/alltrunc --steps 8
check "resume, checkpoints of another scheme" "not a checkpoint of this run" "$ORDO" train --resume runs/foreign --steps 8
check "eval without checkpoint"  "no checkpoint (ckpt-<step>.safetensors) in the run" "$ORDO" eval runs/empty
check "eval, every checkpoint truncated" "file truncated?"      "$ORDO" eval runs/alltrunc
check "sample, every checkpoint truncated" "file truncated?"    "$ORDO" sample runs/alltrunc --prompt the
if command -v python3 >/dev/null 2>&1; then
  # a hand-edited run: config.json and the checkpoint's metadata ask for terabytes
  cp -r "$G" "$dir/runs/edited"
  python3 - "$dir/runs/edited" <<'EOF'
import json, os, struct, sys
d = sys.argv[1]
big = {"context": 65536, "pos": "alibi", "heads": 256, "d-model": 256, "corpus-tokens": 2000000}
c = json.load(open(os.path.join(d, "config.json"))); c.update(big)
json.dump(c, open(os.path.join(d, "config.json"), "w"))
for name in os.listdir(d):
    if not name.startswith("ckpt-"): continue
    p = os.path.join(d, name); b = open(p, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]; h = json.loads(b[8:8 + n])
    cfg = json.loads(h["__metadata__"]["config"]); cfg.update(big)
    h["__metadata__"]["config"] = json.dumps(cfg)
    h["__metadata__"].pop("ordo_header_xxh3", None) # unsealed: read as an older ordo's
    nh = json.dumps(h).encode(); nh += b" " * (-len(nh) % 8)
    open(p, "wb").write(struct.pack("<Q", len(nh)) + nh + b[8 + n:])
EOF
  check "resume of a hand-edited huge config" "of memory on this machine" "$ORDO" train --resume runs/edited --steps 8
  check "eval of a hand-edited huge config"   "of memory on this machine" "$ORDO" eval runs/edited
  # a checkpoint from a newer ordo with an option this one does not know (once a segfault)
  cp -r "$G" "$dir/runs/newer"
  python3 - "$dir/runs/newer" <<'EOF'
import json, os, struct, sys
d = sys.argv[1]
for name in os.listdir(d):
    if not name.startswith("ckpt-"): continue
    p = os.path.join(d, name); b = open(p, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]; h = json.loads(b[8:8 + n])
    cfg = json.loads(h["__metadata__"]["config"]); cfg["colour"] = "blue"
    h["__metadata__"]["config"] = json.dumps(cfg)
    # no XXH3 here to seal the edited header with: without the entry the file reads as an
    # older ordo's, whose header is taken on trust, and the config is what is refused
    h["__metadata__"].pop("ordo_header_xxh3", None)
    nh = json.dumps(h).encode(); nh += b" " * (-len(nh) % 8)
    open(p, "wb").write(struct.pack("<Q", len(nh)) + nh + b[8 + n:])
EOF
  check "eval, checkpoint config with an unknown key"   "unknown key \"colour\"" "$ORDO" eval runs/newer
  check "sample, checkpoint config with an unknown key" "unknown key \"colour\"" "$ORDO" sample runs/newer --prompt the
else
  echo "SKIP: hand-edited config cases (no python3)"; skip=$((skip+4))
fi

# --- tokenize --decode
printf -- '-1\n' > "$dir/data/neg.ids"
printf '5 99999999999\n' > "$dir/data/huge.ids"
check "decode negative id"       "token id -1 (at index 0) is not in the byte vocabulary" "$ORDO" tokenize --tokenizer byte --decode data/neg.ids
check "tokenize an endless input" "/dev/zero: is a character device, expected a regular file or a pipe" "$ORDO" tokenize --tokenizer byte --count /dev/zero
check "decode id past int32"     "'99999999999' is not an integer token id" "$ORDO" tokenize --tokenizer byte --decode data/huge.ids

# --- paths longer than ORDO_PATH_MAX (4096 bytes with the NUL): refused with the start of the
# path quoted, before anything is made. snprintf into fixed buffers used to cut them quietly,
# and ordo went on with the cut name (opening, or when pruning checkpoints deleting, a file
# of another name), or made part of --out and failed later on the kernel's ENAMETOOLONG.
# longpath BASE LEN: BASE/ppp.../ppp, exactly LEN bytes, in names of at most 99 bytes (so the
# kernel's limit on one name is never what refuses it)
longpath() {
  local p=$1 n
  while [ ${#p} -lt "$2" ]; do
    n=$(( $2 - ${#p} - 1 ))
    if [ $n -gt 99 ]; then n=99; [ $(( $2 - ${#p} - 100 )) -eq 1 ] && n=98; fi
    p+=/$(head -c $n /dev/zero | tr '\0' p)
  done
  printf '%s' "$p"
}
over=$(longpath fresh 4200)   # over the limit itself
near=$(longpath fresh 4070)   # fits, DIR/ckpt-4.safetensors and the like do not
toolong="path too long: 'fresh/ppppp"
check "--out over ORDO_PATH_MAX"       "$toolong" "$ORDO" train "${tiny[@]}" --out "$over"
check "--out its files do not fit in"  "is over 4095 bytes" "$ORDO" train "${tiny[@]}" --out "$near"
check "sweep --out over ORDO_PATH_MAX" "$toolong" "$ORDO" sweep "${tiny[@]}" --pos learned --seeds 1 --out "$over"
check "sweep --out its runs do not fit in" "$toolong" "$ORDO" sweep "${tiny[@]}" --pos learned --seeds 1 --out "$near"
check "compare --out over ORDO_PATH_MAX" "$toolong" "$ORDO" compare runs/good --out "$over"
check "compare --out its files do not fit in" "$toolong" "$ORDO" compare runs/good --out "$near"
check "viz --out over ORDO_PATH_MAX"   "$toolong" "$ORDO" viz runs/good --out "$over"
check "viz --out its maps do not fit in" "$toolong" "$ORDO" viz runs/good --out "$near"
check "eval of a run dir over ORDO_PATH_MAX"   "$toolong" "$ORDO" eval "$over"
check "sample of a run dir over ORDO_PATH_MAX" "$toolong" "$ORDO" sample "$over" --prompt the
check "resume of a run dir over ORDO_PATH_MAX" "$toolong" "$ORDO" train --resume "$over"
check "compare of run dirs over ORDO_PATH_MAX" "$toolong" "$ORDO" compare runs/good "$over"
check "ORDO_VOCAB_DIR over ORDO_PATH_MAX" "$toolong" env ORDO_VOCAB_DIR="$over" "$ORDO" tokenize --tokenizer gpt2 data/text.txt
# a real run in a dir where config.json fits but ckpt-4.safetensors does not (4080 + 20 bytes):
# it is refused as it is, nothing in it changes and nothing appears beside it
deep=$(longpath work/deep 4080)
mkdir -p "$dir/$deep" &&
  (cd "$dir" && IFS=/ && for c in $deep; do cd "$c" || exit 1; done &&
   cp "$G/config.json" "$G/metrics.jsonl" "$G/ckpt-4.safetensors" .) || bad "copying a run into a deep dir"
listing() { (cd "$dir/work" && find deep -printf '%s %p\n' | sort | sha256sum); }
before=$(listing)
check "eval of a run whose checkpoint path does not fit"   "is over 4095 bytes" "$ORDO" eval "$deep" --save
check "sample of a run whose checkpoint path does not fit" "is over 4095 bytes" "$ORDO" sample "$deep" --prompt the
check "resume of a run whose checkpoint path does not fit" "is over 4095 bytes" "$ORDO" train --resume "$deep" --steps 8
check "viz of a run whose checkpoint path does not fit"    "is over 4095 bytes" "$ORDO" viz "$deep"
[ "$before" = "$(listing)" ] && ok || bad "a run whose paths do not fit: files under it changed"

# --- output dirs that cannot be written
check "--out under a regular file" "exists and is not a directory"            "$ORDO" train "${tiny[@]}" --out data/plainfile/run

ro_mode=""
if [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$dir/ro" && cp -r "$G" "$dir/runs/ro_run"
  if mount --bind "$dir/ro" "$dir/ro" 2>/dev/null; then
    mounts=("$dir/ro" "${mounts[@]}")
    mount -o remount,bind,ro "$dir/ro" 2>/dev/null && ro_mode=mount
  fi
  if [ "$ro_mode" = mount ] && mount --bind "$dir/runs/ro_run" "$dir/runs/ro_run" 2>/dev/null; then
    mounts=("$dir/runs/ro_run" "${mounts[@]}")
    mount -o remount,bind,ro "$dir/runs/ro_run" 2>/dev/null || ro_mode=""
  fi
fi
if [ "$ro_mode" = mount ]; then
  check "read-only output dir"   "Read-only file system"         "$ORDO" train "${tiny[@]}" --out ro/run
  check "resume of a read-only run" "Read-only file system"      "$ORDO" train --resume runs/ro_run --steps 8
elif command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
  chmod 755 "$dir" "$dir/runs" "$dir/data"; mkdir -p "$dir/ro"; chmod 755 "$dir/ro"
  [ -d "$dir/runs/ro_run" ] || cp -r "$G" "$dir/runs/ro_run"
  chmod -R a+rX "$dir/runs/ro_run"
  nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  check "read-only output dir (as nobody)" "Permission denied"   "${nobody[@]}" "$ORDO" train "${tiny[@]}" --out ro/run
  check "resume of a read-only run (as nobody)" "Permission denied" "${nobody[@]}" "$ORDO" train --resume runs/ro_run --steps 8
else
  echo "SKIP: read-only output dir (needs root for a read-only mount or setpriv)"; skip=$((skip+2))
fi

full=""
if [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$dir/full" "$dir/nearlyfull"
  # 32 KiB: room for config.json and metrics, not for a 50 KB checkpoint
  if mount -t tmpfs -o size=32k tmpfs "$dir/full" 2>/dev/null; then
    mounts=("$dir/full" "${mounts[@]}"); full=1
  fi
fi
if [ -n "$full" ]; then
  check "full output dir"        "No space left on device"       "$ORDO" train "${tiny[@]}" --out full/run
  ls "$dir/full/run" 2>/dev/null | grep -q 'ckpt-\|\.tmp\.' && bad "full output dir: left a checkpoint or temporary file" || ok
  # a finished run on a disk with room for its files and no more: --resume cannot checkpoint
  used=$(du -sk "$G" | cut -f1)
  if mount -t tmpfs -o size=$((used + 24))k tmpfs "$dir/nearlyfull" 2>/dev/null; then
    mounts=("$dir/nearlyfull" "${mounts[@]}")
    cp -r "$G" "$dir/nearlyfull/run"
    sums=$(cd "$dir/nearlyfull/run" && sha256sum ckpt-*.safetensors)
    out=$(cd "$dir" && "$ORDO" train --resume nearlyfull/run --steps 8 2>&1); rc=$?
    if [ $rc -eq 0 ] || [ $rc -ge 124 ] || ! grep -qF "No space left on device" <<<"$out"; then
      bad "resume on a full disk: status $rc: $(tail -2 <<<"$out")"
    elif [ "$sums" != "$(cd "$dir/nearlyfull/run" && sha256sum ckpt-*.safetensors)" ] ||
         ls "$dir/nearlyfull/run" | grep -q '\.tmp\.'; then
      bad "resume on a full disk: checkpoints changed or a temporary file was left"
    else
      ok
    fi
  else
    echo "SKIP: resume on a full disk (second tmpfs mount failed)"; skip=$((skip+1))
  fi
else
  echo "SKIP: full output dir (needs root to mount a small tmpfs)"; skip=$((skip+3))
fi

# --- meant to write: a truncated newest checkpoint is skipped with a warning, the previous
# one resumes, and the truncated file is replaced by the new run's own. A temporary file a
# killed writer left is removed; a user's file that merely looks like one is not.
cp -r "$G" "$dir/work/trunc"
truncate -s 2000 "$dir/work/trunc/ckpt-4.safetensors"
echo notes > "$dir/work/trunc/notes.tmp.txt"
echo litter > "$dir/work/trunc/ckpt-6.safetensors.tmp.4242"
out=$("$ORDO" train --resume "$dir/work/trunc" --steps 6 2>&1); rc=$?
if [ $rc -ne 0 ] || ! grep -qF "ckpt-4.safetensors: header length" <<<"$out" ||
   ! grep -qF "resuming $dir/work/trunc from step 2" <<<"$out"; then
  bad "truncated newest checkpoint: status $rc: $(head -3 <<<"$out")"
else
  ok
fi
[ -f "$dir/work/trunc/notes.tmp.txt" ] && ok || bad "resume deleted a user's notes.tmp.txt"
[ ! -e "$dir/work/trunc/ckpt-6.safetensors.tmp.4242" ] && ok || bad "resume left a stale temporary file"

# --- checkpoint integrity (checksums, step against name, finite values;
# the fallback to an older checkpoint is tests/robustness/test_ckpt_integrity.sh). Byte surgery without
# python: the header length is the first 8 bytes, little-endian.
ck_data() { echo $((8 + $(od -An -t u8 -N8 "$1" | tr -d ' '))); }
ck_put() { printf "$(printf '\\%03o' "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
ck_flip() { local at=$(($(ck_data "$1") + $2)); ck_put "$1" $at $(($(od -An -t u1 -j $at -N1 "$1") ^ 1)); }
ck_nocheck() { # the checksum entries blanked out, as a file of an older ordo has none
  local m e key
  for key in ordo_header_xxh3 ordo_data_xxh3; do
    m=$(grep -abo ',"'$key'":"[0-9a-f]\{16\}"' "$1"); e=${m#*:}
    printf '%*s' ${#e} '' | dd of="$1" bs=1 seek="${m%%:*}" conv=notrunc status=none
  done
}
ck_nan() { # the first float of the data section (h.0.attn.c_attn.bias) made a NaN
  local at; at=$(ck_data "$1"); ck_put "$1" $((at + 2)) 255; ck_put "$1" $((at + 3)) 255
}
cp -r "$G" "$dir/runs/ck_flipped"                               # every checkpoint: one bit flipped
for f in "$dir/runs/ck_flipped"/ckpt-*.safetensors; do ck_flip "$f" 100; done
cp -r "$G" "$dir/runs/ck_nan"                                   # no checksum, a NaN weight
for f in "$dir/runs/ck_nan"/ckpt-*.safetensors; do ck_nocheck "$f"; ck_nan "$f"; done
mkdir -p "$dir/runs/ck_renamed"                                 # ckpt-2's file as ckpt-4, alone
cp "$G/config.json" "$G/ckpt-2.safetensors" "$dir/runs/ck_renamed/"
mv "$dir/runs/ck_renamed/ckpt-2.safetensors" "$dir/runs/ck_renamed/ckpt-4.safetensors"
cp -r "$G" "$dir/runs/ck_badsum"                                # the checksum not 16 hex digits
for f in "$dir/runs/ck_badsum"/ckpt-*.safetensors; do
  m=$(grep -abo '"ordo_data_xxh3":"' "$f"); e=${m#*:}; ck_put "$f" $((${m%%:*} + ${#e})) 120 # 'x'
done
check "eval, every checkpoint fails its checksum"   "none of its 2 checkpoint(s) could be used" "$ORDO" eval runs/ck_flipped
check "sample, every checkpoint fails its checksum" "checksum mismatch"  "$ORDO" sample runs/ck_flipped --prompt cat
check "viz, every checkpoint fails its checksum"    "checksum mismatch"  "$ORDO" viz runs/ck_flipped --out fresh
check "resume, every checkpoint fails its checksum" "ckpt-2.safetensors: checksum mismatch" "$ORDO" train --resume runs/ck_flipped --steps 8
check "eval, a NaN weight in every checkpoint"      "tensor h.0.attn.c_attn.bias holds NaN at index 0" "$ORDO" eval runs/ck_nan
check "resume, a NaN weight in every checkpoint"    "holds NaN at index 0" "$ORDO" train --resume runs/ck_nan --steps 8
check "eval, a checkpoint renamed to another step"  "its metadata says step 2, its name step 4" "$ORDO" eval runs/ck_renamed
check "resume, a checkpoint renamed to another step" "its metadata says step 2, its name step 4" "$ORDO" train --resume runs/ck_renamed --steps 8
check "eval, a checksum that is not 16 hex digits"  "is not a hash (expected 16 hex digits)" "$ORDO" eval runs/ck_badsum
check "init from a file failing its checksum"       "checksum mismatch"  "$ORDO" train "${tiny[@]}" --init runs/ck_flipped/ckpt-4.safetensors --out "$F"
check "init with a NaN weight"                      "holds NaN at index 0" "$ORDO" train "${tiny[@]}" --init runs/ck_nan/ckpt-4.safetensors --out "$F"

# --- locks: a run directory in use by another process, its lock file, and
# the keys of `ordo train`'s own options in a --config file. The live run is in work/ (not
# guarded: it changes as it trains); every refused command here must leave it alone too.
echo '{"resume": "runs/good", "steps": 8}' > "$dir/data/resume.json"
echo '{"config": "data/type.json"}' > "$dir/data/nested.json"
check "config file with a resume key" 'resume.json: the key "resume" cannot be in a --config file' "$ORDO" train --config data/resume.json --out "$F"
check "config file with a config key" 'nested.json: the key "config" cannot be in a --config file' "$ORDO" train --config data/nested.json --out "$F"
"$ORDO" train "${tiny[@]}" --steps 100000000 --log-every 1 --out "$dir/work/live" > /dev/null 2>&1 &
holder=$!
trap 'kill -9 $holder 2>/dev/null; cleanup' EXIT
for _ in $(seq 1 1200); do grep -q '"step":' "$dir/work/live/metrics.jsonl" 2>/dev/null && break; sleep 0.1; done
lpid=$(sed -n 's/.*"pid": \([0-9]*\).*/\1/p' "$dir/work/live/.lock" 2>/dev/null)
if [ "$lpid" = "$holder" ]; then
  lsum=$(sha256sum < "$dir/work/live/config.json")
  check "train --out of a run in use"  "run directory work/live is in use by ordo pid $holder" "$ORDO" train "${tiny[@]}" --out work/live
  check "resume of a run in use"       "run directory work/live is in use by ordo pid $holder" "$ORDO" train --resume work/live --steps 8
  check "sweep --out of a dir in use"  "sweep directory work/live is in use by ordo pid $holder" "$ORDO" sweep "${tiny[@]}" --pos learned --seeds 1 --out work/live
  [ "$lsum" = "$(sha256sum < "$dir/work/live/config.json")" ] && [ ! -e "$dir/work/live/sweep.json" ] && ok || bad "refused writers changed the run in use"
else
  bad "the live run for the lock cases did not start"
fi
kill -9 $holder 2>/dev/null; wait $holder 2>/dev/null
cp -r "$G" "$dir/runs/lockdir" && rm "$dir/runs/lockdir/.lock" && mkdir "$dir/runs/lockdir/.lock"
check "resume of a run whose .lock is a directory" "lockdir/.lock: cannot open the lock file: Is a directory" "$ORDO" train --resume runs/lockdir --steps 8
# a symlink is not followed: a run dir copied from elsewhere must not make ordo write its
# record into whatever file the link names
cp -r "$G" "$dir/runs/locklink" && rm "$dir/runs/locklink/.lock" && ln -s ../../data/small.txt "$dir/runs/locklink/.lock"
check "resume of a run whose .lock is a symlink" "locklink/.lock: cannot open the lock file: Too many levels of symbolic links" "$ORDO" train --resume runs/locklink --steps 8

# --- data files (identity on resume, FIFOs and devices, token files). Inputs that
# would block or never end are refused before a byte is read: each case runs under a 10 s
# timeout (exit 124 fails the case), and the sparse files over a size cap are never read.
mkfifo "$dir/work/fifo"                                       # no writer: open would block
truncate -s 3G "$dir/work/huge.txt"                           # sparse: over the 2 GiB text cap
mkdir -p "$dir/work/fifovocab" "$dir/work/hugevocab"
mkfifo "$dir/work/fifovocab/encoder.json"; : > "$dir/work/fifovocab/vocab.bpe"
truncate -s 100M "$dir/work/hugevocab/encoder.json"; : > "$dir/work/hugevocab/vocab.bpe"
check "data is a FIFO"           "work/fifo: is a FIFO, expected a regular file" timeout 10 "$ORDO" train --data work/fifo --tokenizer byte --out "$F"
check "data is /dev/zero"        "/dev/zero: is a character device, expected a regular file" timeout 10 "$ORDO" train --data /dev/zero --tokenizer byte --out "$F"
check "vocab file is a FIFO"     "encoder.json: is a FIFO, expected a regular file" timeout 10 "$ORDO" train --data data/text.txt --vocab work/fifovocab --out "$F"
check "vocab file of 100 MB"     "more than the limit of"        timeout 10 "$ORDO" tokenize --vocab work/hugevocab data/text.txt
check "text data over the cap"   "a text file may have; tokenize it once" timeout 10 "$ORDO" train --data work/huge.txt --tokenizer byte --out "$F"
check "tokenize a directory"     "data: is a directory, expected a regular file or a pipe" "$ORDO" tokenize --tokenizer byte data
# token files: damaged, cut short, of another tokenizer
"$ORDO" tokenize --tokenizer byte --out "$dir/data/t.bin" "$dir/data/text.txt" > /dev/null || bad "making a token file"
tb="$dir/data/t.bin"
cp "$tb" "$dir/data/magic.bin"; printf 'ORDOTOX1' | dd of="$dir/data/magic.bin" conv=notrunc 2>/dev/null
cp "$tb" "$dir/data/short.bin"; truncate -s 1000 "$dir/data/short.bin"
cp "$tb" "$dir/data/long.bin"; printf 'xy' >> "$dir/data/long.bin"
cp "$tb" "$dir/data/flip.bin"; printf '\377' | dd of="$dir/data/flip.bin" bs=1 seek=100 conv=notrunc 2>/dev/null
cp "$tb" "$dir/data/vocab.bin"; printf 'd\0\0\0' | dd of="$dir/data/vocab.bin" bs=1 seek=16 conv=notrunc 2>/dev/null # vocab 100: 'e' is 101
cp "$tb" "$dir/data/bert.bin"; printf 'bert' | dd of="$dir/data/bert.bin" bs=1 seek=40 conv=notrunc 2>/dev/null
cp "$tb" "$dir/data/v2.bin"; printf '\2' | dd of="$dir/data/v2.bin" bs=1 seek=8 conv=notrunc 2>/dev/null
printf 'hello world, not a token file\n' > "$dir/data/text.bin"
check "token file: bad magic"        "not an ordo token file (bad magic" "$ORDO" train --data data/magic.bin --out "$F"
check "token file: text named .bin"  "not an ordo token file (bad magic" "$ORDO" train --data data/text.bin --out "$F"
nt=$(wc -c < "$dir/data/text.txt")                          # ids in t.bin (byte: one a byte)
check "token file: truncated"        "truncated payload: the header says $nt ids of 2 bytes, the file holds 936 bytes" "$ORDO" train --data data/short.bin --out "$F"
check "token file: bytes past the ids" "2 bytes after the $nt ids the header announces" "$ORDO" train --data data/long.bin --out "$F"
check "token file: a flipped byte"   "the ids do not match the header's hash" "$ORDO" train --data data/flip.bin --out "$F"
check "token file: id over vocab"    "token id 116 at index 0 is not below the vocab size 100" "$ORDO" train --data data/vocab.bin --out "$F"
check "token file: unknown tokenizer" "made with the tokenizer 'bert'" "$ORDO" train --data data/bert.bin --out "$F"
check "token file: newer version"    "token file version 2, this ordo reads version 1" "$ORDO" train --data data/v2.bin --out "$F"
check "token file: other tokenizer"  "holds byte token ids, but the run uses --tokenizer gpt2" "$ORDO" train --data data/t.bin --tokenizer gpt2 --out "$F"
check "tokenize --out over its input" "--out data/text.txt is the input data/text.txt itself" "$ORDO" tokenize --tokenizer byte --out data/text.txt data/text.txt
check "tokenize --out with --decode" "not with --decode"             "$ORDO" tokenize --tokenizer byte --decode --out fresh data/neg.ids
check "tokenize --chunk-bytes -1"    "--chunk-bytes is -1, expected 0.." "$ORDO" tokenize --tokenizer byte --chunk-bytes -1 data/text.txt
check "tokenize --out into a missing dir" "cannot create temporary file" "$ORDO" tokenize --tokenizer byte --out fresh/sub/t.bin data/text.txt
# a resume on a data file that changed: refused, naming both sizes; the run stays as it was
cp "$dir/data/text.txt" "$dir/data/grow.txt"
"$ORDO" train "${tiny[@]}" --data "$dir/data/grow.txt" --tokenizer byte --context 8 --out "$dir/runs/grow" > /dev/null 2>&1 || bad "fixture run on grow.txt"
size0=$(wc -c < "$dir/data/grow.txt"); echo "appended" >> "$dir/data/grow.txt"; size1=$(wc -c < "$dir/data/grow.txt")
check "resume on a changed data file" "changed since the run started: size $size0 -> $size1 bytes" "$ORDO" train --resume runs/grow --steps 8
check "--data-changed of another value" "unknown --data-changed value 'yes' (expected refuse or ok)" "$ORDO" train --resume runs/grow --steps 8 --data-changed yes
check "--data-changed on a new run"  "--data-changed goes with --resume" "$ORDO" train "${tiny[@]}" --data-changed ok --out "$F"
# eval, sample and resume of a run whose data file was replaced by a FIFO: refused at once
cp "$dir/data/text.txt" "$dir/data/gone.txt"
"$ORDO" train "${tiny[@]}" --data "$dir/data/gone.txt" --tokenizer byte --context 8 --out "$dir/runs/gone" > /dev/null 2>&1 || bad "fixture run on gone.txt"
rm "$dir/data/gone.txt"; mkfifo "$dir/data/gone.txt"
check "eval: data became a FIFO"     "gone.txt: is a FIFO, expected a regular file" timeout 10 "$ORDO" eval runs/gone
# sample needs the tokenizer only: it never opens the data file, FIFO or not
out=$(cd "$dir" && timeout 10 "$ORDO" sample runs/gone --prompt the --tokens 2 2>&1) && ok || bad "sample: data became a FIFO: $out"
check "resume: data became a FIFO"   "gone.txt: is a FIFO, expected a regular file" timeout 10 "$ORDO" train --resume runs/gone --steps 8

# --- metrics: a metrics.jsonl or config.json that cannot be
# written stops the run like a checkpoint that cannot (a message naming the file and errno,
# status 1, the checkpoints kept, every line of the log whole), and it resumes once there is
# room; an eval too large for the memory is refused with the estimate, never aborted.
# valid_log FILE: every line a JSON object and the file ends in a newline (no torn line)
valid_log() {
  [ ! -s "$1" ] || [ "$(tail -c1 "$1" | od -An -c | tr -d ' ')" = '\n' ] || return 1
  if command -v python3 > /dev/null; then
    python3 -c 'import json,sys
for l in open(sys.argv[1]): assert isinstance(json.loads(l), dict)' "$1" 2> /dev/null
  else
    node -e 'const t = require("fs").readFileSync(process.argv[1], "utf8").trimEnd();
             for (const l of t ? t.split("\n") : []) JSON.parse(l)' "$1" 2> /dev/null
  fi
}
# contiguous FILE: its steps go up by one from the first line's
contiguous() { sed 's/^{"step":\([0-9]*\),.*/\1/' "$1" | awk 'NR > 1 && $1 != p + 1 { exit 1 } { p = $1 }'; }
if [ -n "$full" ]; then
  mkdir -p "$dir/mfull" "$dir/mnear" "$dir/cfull"
  # a disk with room for config.json and the run lock file (one 4 KiB page each) and nothing
  # more: the first metrics line fails, before any checkpoint; with room again, --resume starts
  # the run over
  if mount -t tmpfs -o size=8k tmpfs "$dir/mfull" 2>/dev/null; then
    mounts=("$dir/mfull" "${mounts[@]}")
    out=$(cd "$dir" && "$ORDO" train "${tiny[@]}" --log-every 1 --out mfull/run 2>&1); rc=$?
    if [ $rc -eq 0 ] || [ $rc -ge 124 ] ||
       ! grep -qF "mfull/run/metrics.jsonl: cannot write the metrics line at step 1: No space left on device" <<<"$out"; then
      bad "metrics on a full disk: status $rc: $(tail -2 <<<"$out")"
    elif ls "$dir/mfull/run" | grep -q 'ckpt-\|\.tmp\.' || [ -s "$dir/mfull/run/metrics.jsonl" ]; then
      bad "metrics on a full disk: left a checkpoint, a temporary file or a line"
    else
      ok
    fi
    mount -o remount,size=1m "$dir/mfull"
    out=$(cd "$dir" && "$ORDO" train --resume mfull/run 2>&1); rc=$?
    [ $rc -eq 0 ] && valid_log "$dir/mfull/run/metrics.jsonl" &&
      [ "$(cut -d, -f1 "$dir/mfull/run/metrics.jsonl" | tr '\n' ' ')" = '{"step":1 {"step":2 {"step":3 {"step":4 ' ] \
      && ok || bad "resume after a full disk at the first metrics line: status $rc: $(tail -2 <<<"$out")"
  else
    echo "SKIP: metrics on a full disk (tmpfs mount failed)"; skip=$((skip+2))
  fi
  # a finished run resumed on a disk that fills up with metrics lines before the next
  # checkpoint: the run stops at the line that does not fit, whole lines only, checkpoints
  # as they were; with room again it resumes and the log has every step once, in order
  used=$(du -sk "$G" | cut -f1)
  if mount -t tmpfs -o size=$((used + 24))k tmpfs "$dir/mnear" 2>/dev/null; then
    mounts=("$dir/mnear" "${mounts[@]}")
    cp -r "$G" "$dir/mnear/run"
    sums=$(cd "$dir/mnear/run" && sha256sum ckpt-*.safetensors)
    out=$(cd "$dir" && "$ORDO" train --resume mnear/run --steps 100000 --ckpt-every 0 --log-every 1 2>&1); rc=$?
    if [ $rc -eq 0 ] || [ $rc -ge 124 ] ||
       ! grep -qE "mnear/run/metrics.jsonl: cannot write the metrics line at step [0-9]+: No space left on device; stopped without writing a checkpoint .*ordo train --resume mnear/run" <<<"$out"; then
      bad "metrics filling the disk: status $rc: $(tail -2 <<<"$out")"
    elif [ "$sums" != "$(cd "$dir/mnear/run" && sha256sum ckpt-*.safetensors)" ] ||
         ls "$dir/mnear/run" | grep -q '\.tmp\.'; then
      bad "metrics filling the disk: checkpoints changed or a temporary file was left"
    elif ! valid_log "$dir/mnear/run/metrics.jsonl" || ! contiguous "$dir/mnear/run/metrics.jsonl" ||
         [ "$(wc -l < "$dir/mnear/run/metrics.jsonl")" -lt 100 ]; then
      bad "metrics filling the disk: the log is torn, has gaps or stopped early ($(wc -l < "$dir/mnear/run/metrics.jsonl") lines)"
    else
      ok
    fi
    mount -o remount,size=4m "$dir/mnear"
    out=$(cd "$dir" && "$ORDO" train --resume mnear/run --steps 300 --ckpt-every 100 --log-every 1 2>&1); rc=$?
    [ $rc -eq 0 ] && valid_log "$dir/mnear/run/metrics.jsonl" && contiguous "$dir/mnear/run/metrics.jsonl" &&
      [ "$(tail -1 "$dir/mnear/run/metrics.jsonl" | cut -d, -f1)" = '{"step":300' ] \
      && ok || bad "resume after metrics filled the disk: status $rc: $(tail -2 <<<"$out")"
  else
    echo "SKIP: metrics filling the disk (tmpfs mount failed)"; skip=$((skip+2))
  fi
  # no room at all: config.json cannot be written
  if mount -t tmpfs -o size=8k tmpfs "$dir/cfull" 2>/dev/null; then
    mounts=("$dir/cfull" "${mounts[@]}")
    head -c 8192 /dev/zero > "$dir/cfull/filler" 2>/dev/null
    check "config.json on a full disk" "cfull/run/config.json: write failed: No space left on device" "$ORDO" train "${tiny[@]}" --out cfull/run
  else
    echo "SKIP: config.json on a full disk (tmpfs mount failed)"; skip=$((skip+1))
  fi
else
  echo "SKIP: metrics and config.json on a full disk (needs root to mount a small tmpfs)"; skip=$((skip+5))
fi
# eval past the memory: refused with the estimate (never "internal error" and SIGABRT). A rope
# run with a validation split of 110000 tokens; 16 heads x 100000^2 floats is 640 GB of
# attention (the materialized attention, one layer at a time), past any machine; under ulimit
# -v the limit is named. The materialized attention's estimates (the fused one's grow
# linearly in T: test_eval_memory)
"$ORDO" train --task order --corpus-tokens 1100000 --context 16 --d-model 32 --heads 16 --layers 8 \
  --batch 4 --steps 1 --eval-every 0 --threads 1 --pos rope --out "$dir/runs/long" > /dev/null 2>&1 || bad "fixture run (long)"
check "eval context past the memory" "eval at context 100000 (1 window per forward) needs about 596 GiB (the attention alone 596 GiB: 1 x 16 head(s) x 100000^2 floats, one layer at a time), more than the" "$ORDO" eval runs/long --context 100000 --attention materialized
check "eval context and batch past the memory" "use a smaller --context or --batch" "$ORDO" eval runs/long --context 50000 --attention materialized
# a sanitizer build cannot start under ulimit -v (its shadow memory): those cases need one that can
if bash -c 'ulimit -v 3000000 && exec "$0" eval "$1" --threads 1' "$ORDO" "$G" > /dev/null 2>&1; then
check "eval context past ulimit -v" "of address space allowed (ulimit -v); use a smaller --context" bash -c 'ulimit -v 3000000 && exec "$0" eval runs/long --context 8000 --max-windows 1 --threads 1 --attention materialized' "$ORDO"
# training's check reads the same limits (it used physical memory only)
check "train past ulimit -v" "of address space allowed (ulimit -v); make some of them smaller" bash -c 'ulimit -v 3000000 && exec "$0" train --task order --corpus-tokens 20000 --context 4096 --batch 64 --d-model 512 --layers 8 --heads 8 --steps 1 --out runs/toobig --threads 1' "$ORDO"
# the learned table of --pos-random N has N rows, not --context's: counted, it is refused the
# same way (it aborted in params.c with "out of memory", leaving a run holding only .lock)
check "pos-random table past ulimit -v" "of address space allowed (ulimit -v); make some of them smaller" bash -c 'ulimit -v 3000000 && exec "$0" train --task order --corpus-tokens 20000 --pos learned --pos-random 1048576 --context 16 --d-model 512 --steps 1 --out runs/toobig2 --threads 1' "$ORDO"
# a limit just above the estimate: the estimate passes, but the process already holds more
# than the difference, so the arena's reservation is refused: an error, no abort
est=$(cd "$dir" && bash -c 'ulimit -v 3000000 && exec "$0" eval runs/long --context 8000 --max-windows 1 --threads 1 --attention materialized' "$ORDO" 2>&1 |
      sed -n 's/.*needs about \([0-9.]*\) GiB.*/\1/p')
kb=$(awk -v g="${est:-0}" 'BEGIN { printf "%d", (g + 0.01) * 1048576 }')
check "eval within ulimit -v but refused by the system" "and the system refused it (cannot allocate" bash -c 'ulimit -v "$1" && exec "$0" eval runs/long --context 8000 --max-windows 1 --threads 1 --attention materialized' "$ORDO" "$kb"
"$ORDO" train --task copy --corpus-tokens 3000 --context 64 --d-model 16 --heads 2 --layers 1 --batch 4 \
  --steps 1 --eval-every 0 --threads 1 --pos rope --out "$dir/runs/copy" > /dev/null 2>&1 || bad "fixture run (copy)"
check "copy exact match past the memory" "exact match at n = 4096 (context 8194, 64 examples per forward) needs about" bash -c 'ulimit -v 3000000 && exec "$0" eval runs/copy --max-n 4096 --threads 1 --attention materialized' "$ORDO"
else
  echo "SKIP: eval under ulimit -v (this ordo cannot start under it: a sanitizer build?)"; skip=$((skip+3))
fi

# --- bf16 matmuls: --precision names, the refusal where oneDNN runs no bf16 (forced
# with ONEDNN_MAX_CPU_ISA, which oneDNN reads), a config value of the wrong type, and a
# resume in another precision (precision is fixed for a run, as the model's shape is)
echo '{"precision": 16}' > "$dir/data/prec.json"
check "unknown precision"        "--precision: unknown precision 'fp16' (expected fp32 or bf16)" "$ORDO" train --precision fp16 --out "$F"
check "bf16 on a CPU without it" "--precision bf16: this CPU has no bf16 arithmetic that oneDNN" env ONEDNN_MAX_CPU_ISA=AVX2 "$ORDO" train --precision bf16 --out "$F"
check "precision of wrong type"  "\"precision\" must be a string" "$ORDO" train --config data/prec.json --out "$F"
check "resume asking for bf16 without it" "--precision bf16: this CPU has no bf16 arithmetic" env ONEDNN_MAX_CPU_ISA=AVX2 "$ORDO" train --resume "$G" --precision bf16
if "$ORDO" --version | grep -q "^--precision bf16: available"; then
  "$ORDO" train "${tiny[@]}" --precision bf16 --out "$dir/runs/bf16" > /dev/null 2>&1 || bad "bf16 fixture run"
  check "resume of bf16 in fp32" "--precision is \"fp32\" but the checkpoint was trained with \"bf16\"" "$ORDO" train --resume "$dir/runs/bf16" --precision fp32
  check "resume of fp32 in bf16" "--precision is \"bf16\" but the checkpoint was trained with \"fp32\"" "$ORDO" train --resume "$G" --precision bf16
  # a bf16 run carried to a machine without bf16 (its config asks for bf16 by itself)
  check "resume of bf16 without it" "--precision bf16: this CPU has no bf16 arithmetic" env ONEDNN_MAX_CPU_ISA=AVX2 "$ORDO" train --resume "$dir/runs/bf16" --steps 8
else
  echo "SKIP: resuming a bf16 run (this CPU runs no bf16)"; skip=$((skip+3))
fi

# --- ordo data and ordo export: bad arguments, a run dir that is none, data too
# short for train's windows; export of what is not a checkpoint, of schemes GPT-2 cannot
# compute, into a path that is a file (nothing is written on any refusal)
check "data: negative --batches"    "--batches is -1, expected 0..1000000" "$ORDO" data --batches -1
check "data: two run dirs"          "expected at most one RUN_DIR, got 2 arguments" "$ORDO" data "$G" "$G"
check "data: run dir and --config"  "RUN_DIR and --config do not go together" "$ORDO" data "$G" --config data/unknown.json
check "data: not a run dir"         "runs/empty/config.json" "$ORDO" data runs/empty
check "data: unknown config key"    "stepz" "$ORDO" data --config data/unknown.json
check "data: file too short"        "training split" "$ORDO" data --data data/small.txt --tokenizer byte
check "data: no full batch"         "make no full batch of 4096" "$ORDO" data --data data/text.txt --tokenizer byte --context 64 --batch 4096
check "data: missing data file"     "data/nofile.txt" "$ORDO" data --data data/nofile.txt --tokenizer byte
check "export: no --hf"             "--hf DIR is required" "$ORDO" export "$G"
check "export: no source"           "expected one RUN_DIR or checkpoint file, got 0" "$ORDO" export --hf "$F"
check "export: missing source"      "runs/nothere: No such file or directory (expected a run directory or a checkpoint file)" "$ORDO" export runs/nothere --hf "$F"
check "export: run without ckpt"    "no checkpoint (ckpt-<step>.safetensors) in the run" "$ORDO" export runs/empty --hf "$F"
check "export: every ckpt damaged"  "none of its 2 checkpoint(s) could be used" "$ORDO" export runs/alltrunc --hf "$F"
check "export: not a checkpoint"    "data/text.txt" "$ORDO" export data/text.txt --hf "$F"
check "export: rope run"            "--pos rope cannot be exported as Hugging Face GPT-2" "$ORDO" export runs/rope --hf "$F"
check "export: bad --n-positions"   "--n-positions is -1, expected 0..1048576" "$ORDO" export "$G" --hf "$F" --n-positions -1
check "export: learned, other length" "--n-positions 64: the learned table of" "$ORDO" export "$G" --hf "$F" --n-positions 64
check "export: --hf is a file"      "data/plainfile" "$ORDO" export "$G" --hf data/plainfile/hf
# --- help and progress: a flag given a value the old way, --no- of
# an option that is no flag, eval's --sliding-stride without --mode sliding or beside its old
# name, and an unknown --progress
check "flag followed by 0"       "--shuffle takes no value, but '0' follows it (a flag: write --shuffle or --no-shuffle" "$ORDO" train --shuffle 0 --out "$F"
check "flag with =false"         "--drop-last takes no value (a flag: write --drop-last or --no-drop-last)" "$ORDO" train --drop-last=false --out "$F"
check "--no- of a non-flag"      "unknown option '--no-steps'"   "$ORDO" train --no-steps --out "$F"
check "sliding-stride, nonoverlap" "--sliding-stride 4 goes with --mode sliding" "$ORDO" eval "$G" --sliding-stride 4
check "old eval --stride, nonoverlap" "--sliding-stride 4 goes with --mode sliding" "$ORDO" eval "$G" --stride 4
check "both stride names"        "--stride is the old name of --sliding-stride" "$ORDO" eval "$G" --mode sliding --stride 4 --sliding-stride 4
check "unknown train --progress" "--progress: unknown progress mode 'tqdm' (expected auto, live, plain or off)" "$ORDO" train --progress tqdm --out "$F"
check "unknown sweep --progress" "--progress: unknown progress mode 'bar'" "$ORDO" sweep --progress bar --out "$F"
# --- trust the comparison: runs on one data path whose file changed
# between them are refused by the recorded size and hash (both named), and config.json's
# val_unigram record is skipped on read-back only as the object train writes
awk 'BEGIN { for (i = 0; i < 300; i++) printf "the cat saw the %s .\n", (i % 3 ? "dog" : "owl") }' > "$dir/data/u.txt"
"$ORDO" train "${tiny[@]}" --data "$dir/data/u.txt" --tokenizer byte --out "$dir/runs/ua" > /dev/null 2>&1 || bad "fixture run (ua)"
echo "the owl ran ." >> "$dir/data/u.txt"
"$ORDO" train "${tiny[@]}" --data "$dir/data/u.txt" --tokenizer byte --seed 2 --out "$dir/runs/ub" > /dev/null 2>&1 || bad "fixture run (ub)"
check "compare of runs on a changed data file" "but runs/ub on $dir/data/u.txt ($(stat -c %s "$dir/data/u.txt") bytes, xxh3" "$ORDO" compare runs/ua runs/ub --out work/cmp
echo '{"val_unigram": 2.5}' > "$dir/data/uni.json"
check "val_unigram that is not the record" 'unknown key "val_unigram"' "$ORDO" train --config data/uni.json --out "$F"
# --- runs that stand on their own, and resume says what it does: a
# checkpoint that is not there (by step, listing those the run has), --step with a file, eval
# --data that cannot be scored or saved, --val-data without --data or unreadable, an unknown
# --resume-schedule, and a run whose data file is in none of the places it records
: > "$dir/data/empty.txt"
printf 'too short' > "$dir/data/short.txt"
"$ORDO" train --tokenizer byte --data "$dir/data/text.txt" --context 8 --d-model 16 --heads 2 --layers 1 \
  --batch 4 --steps 4 --ckpt-every 2 --keep 5 --eval-every 0 --threads 1 --out "$dir/runs/bytes" > /dev/null 2>&1 || bad "fixture run (bytes)"
check "eval --step of no checkpoint"   "runs/good: no checkpoint of step 3 (ckpt-3.safetensors); the run has checkpoints at steps 4 (milestone), 2" "$ORDO" eval runs/good --step 3
check "sample --step of no checkpoint" "no checkpoint of step 9 (ckpt-9.safetensors); the run has checkpoints at steps 4 (milestone), 2" "$ORDO" sample runs/good --step 9 --prompt "the"
check "viz --step of no checkpoint"    "no checkpoint of step 1 (ckpt-1.safetensors)" "$ORDO" viz runs/good --step 1 --out "$F"
check "--step with a checkpoint file"  "--step 2 and the checkpoint file runs/good/ckpt-4.safetensors do not go together" "$ORDO" eval runs/good/ckpt-4.safetensors --step 2
check "--step below -1"                "--step is -2, expected a checkpoint's step (or -1)" "$ORDO" sample runs/good --step -2 --prompt "the"
check "eval of a missing checkpoint file" "runs/good/ckpt-5.safetensors: no such checkpoint file" "$ORDO" eval runs/good/ckpt-5.safetensors
check "eval --data on a corpus run"    "--data data/text.txt: the run trained on the built-in corpus order, which has no tokenizer for text" "$ORDO" eval runs/good --data data/text.txt
check "eval --data of a missing file"  "data/nope.txt" "$ORDO" eval runs/bytes --data data/nope.txt
check "eval --data of an empty file"   "data/empty.txt: the data file is empty" "$ORDO" eval runs/bytes --data data/empty.txt
check "eval --data with --save"        "--save writes an eval record (RUN_DIR/eval/NAME.json), the run's own validation scores for compare" "$ORDO" eval runs/bytes --data data/text.txt --save
# --- named eval records: a record name that is no safe file name (refused before
# anything is evaluated), --eval-variants that are no variants, and one run given twice
check "eval --save of a path"          "--save '../x': expected 1..64 characters of A-Z a-z 0-9 . _ - not starting with '.'" "$ORDO" eval runs/good --save ../x
check "eval --save= of nothing"        "--save '': expected 1..64 characters" "$ORDO" eval runs/good --save=
check "eval --save of a hidden name"   "--save '.base': expected" "$ORDO" eval runs/good --save .base
check "sweep --eval-variants unknown"  "--eval-variants 'base,fourier:2': 'fourier:2' is not a variant; expected base, drawn, ntk:F, yarn:F, pi:F" "$ORDO" sweep "${tiny[@]}" --pos rope --seeds 1 --eval-variants base,fourier:2 --out "$F"
check "sweep --eval-variants factor"   "'ntk:0.5' is not a variant" "$ORDO" sweep "${tiny[@]}" --pos rope --seeds 1 --eval-variants ntk:0.5 --out "$F"
# a factor of 1 scales nothing: base under another name (it was accepted)
check "sweep --eval-variants factor 1" "'ntk:1' is not a variant; expected base, drawn, ntk:F, yarn:F, pi:F (F a factor above 1" "$ORDO" sweep "${tiny[@]}" --pos rope --seeds 1 --eval-variants base,ntk:1 --out "$F"
check "sweep --eval-variants extend"   "'extend:stretch' is not a variant" "$ORDO" sweep "${tiny[@]}" --pos learned --seeds 1 --eval-variants extend:stretch --out "$F"
check "sweep --eval-variants twice"    "--eval-variants lists ntk-x4 twice" "$ORDO" sweep "${tiny[@]}" --pos rope --seeds 1 --eval-variants ntk:4,ntk:4.0 --out "$F"
check "sweep --eval-variants empty"    "--eval-variants is empty" "$ORDO" sweep "${tiny[@]}" --pos rope --seeds 1 --eval-variants , --out "$F"
check "compare of one run twice"       "one run directory given twice" "$ORDO" compare runs/good runs/rope runs/good --out "$F"
check "--val-data without --data"      "--val-data data/text.txt needs --data" "$ORDO" train --val-data data/text.txt --out "$F"
check "--val-data of an empty file"    "data/empty.txt: the data file is empty" "$ORDO" train --tokenizer byte --data data/text.txt --val-data data/empty.txt --context 8 --out "$F"
check "--val-data shorter than a window" "--val-data $dir/data/short.txt: dataset: the token stream has 9 tokens; one window of max_length 64 needs at least 65" "$ORDO" train --tokenizer byte --data data/text.txt --val-data data/short.txt --context 64 --out "$F"
check "unknown --resume-schedule"      "--resume-schedule: unknown resume schedule 'keep' (expected continue, replan-decay or replan)" "$ORDO" train --resume "$G" --steps 8 --resume-schedule keep
mv "$dir/data/text.txt" "$dir/data/text.away"
check "eval: the data file in none of its places" "the run's file is not there (tried $dir/data/text.txt, runs/bytes/../../data/text.txt); put it back there" "$ORDO" eval runs/bytes
check "resume: the data file in none of its places" "give its new place with 'ordo train --resume RUN --data FILE'" "$ORDO" train --resume runs/bytes --steps 6
mv "$dir/data/text.away" "$dir/data/text.txt"
# --- model options: dropout rates outside [0, 1), a grad-accum below 1 or
# past the batch limit, --untied-head given a value or a config value of the wrong type, and a
# resume that changes any of them (they are the run's maths, fixed as the model's shape is)
echo '{"untied-head": "yes"}' > "$dir/data/untied.json"
echo '{"dropout": "0.1"}' > "$dir/data/dropout.json"
check "dropout of 1"             "--dropout is 1, expected 0 <= p < 1" "$ORDO" train --dropout 1 --out "$F"
check "negative dropout"         "--dropout is -0.1, expected 0 <= p < 1" "$ORDO" train --dropout -0.1 --out "$F"
check "dropout not a number"     "--dropout" "$ORDO" train --dropout lots --out "$F"
check "dropout-attn of 1.5"      "--dropout-attn is 1.5, expected 0 <= p < 1, or -1 for --dropout" "$ORDO" train --dropout-attn 1.5 --out "$F"
check "dropout-resid of -0.5"    "--dropout-resid is -0.5, expected 0 <= p < 1, or -1 for --dropout" "$ORDO" train --dropout-resid -0.5 --out "$F"
check "grad-accum of 0"          "--grad-accum is 0, expected 1..65536" "$ORDO" train --grad-accum 0 --out "$F"
check "grad-accum past the limit" "--grad-accum is 100000, expected 1..65536" "$ORDO" train --grad-accum 100000 --out "$F"
check "untied-head given a value" "--untied-head takes no value" "$ORDO" train --untied-head=1 --out "$F"
check "untied-head of wrong type" "\"untied-head\" must be true/false or 0/1" "$ORDO" train --config data/untied.json --out "$F"
check "dropout of wrong type"    "\"dropout\" must be a finite number" "$ORDO" train --config data/dropout.json --out "$F"
check "resume untying the head"  "--untied-head is 1 but the checkpoint was trained with 0" "$ORDO" train --resume "$G" --untied-head
check "resume with grad-accum"   "--grad-accum is 2 but the checkpoint was trained with 1" "$ORDO" train --resume "$G" --grad-accum 2
check "resume with dropout"      "--dropout is 0.5 but the checkpoint was trained with 0" "$ORDO" train --resume "$G" --dropout 0.5
"$ORDO" train "${tiny[@]}" --untied-head --out "$dir/runs/untied" > /dev/null 2>&1 || bad "untied fixture run"
check "--init untied from a tied file" "no lm_head.weight: its LM head is tied to wte, but --untied-head" "$ORDO" train "${tiny[@]}" --untied-head --init "$G/ckpt-4.safetensors" --out "$F"
check "--init tied from an untied file" "its LM head is untied (lm_head.weight), which a tied model would drop; add --untied-head" "$ORDO" train "${tiny[@]}" --init "$dir/runs/untied/ckpt-4.safetensors" --out "$F"
# --- RoPE scaling and context extension: names, factors, a scaling on a scheme
# without a rotation, a scaling that changes nothing, --init sources, eval overrides, resume
R="$dir/runs/rope"
echo '{"rope-factor": "4"}' > "$dir/data/ropef.json"
echo '{"init_from": 3}' > "$dir/data/initrec.json"
mkdir -p "$dir/runs/empty"
check "unknown rope scaling"     "--rope-scaling: unknown rope scaling 'linear' (expected none, pi, ntk, yarn or dynamic-ntk)" "$ORDO" train "${tiny[@]}" --pos rope --rope-scaling linear --out "$F"
check "yarn beta without yarn"   "--yarn-alpha, --yarn-beta and --yarn-no-temperature go with --rope-scaling yarn, not ntk" "$ORDO" train "${tiny[@]}" --pos rope --rope-scaling ntk --rope-factor 2 --yarn-beta 8 --out "$F"
check "yarn alpha above beta"    "--yarn-alpha 40 and --yarn-beta 32: expected 0 < alpha < beta <= 1e6" "$ORDO" train "${tiny[@]}" --pos rope --rope-scaling yarn --rope-factor 2 --yarn-alpha 40 --out "$F"
check "rope factor alone"        "--rope-factor 4 has no effect without --rope-scaling" "$ORDO" train "${tiny[@]}" --pos rope --rope-factor 4 --out "$F"
check "rope factor below 1"      "--rope-factor is 0.5, expected 1..1e4" "$ORDO" train "${tiny[@]}" --pos rope --rope-scaling pi --rope-factor 0.5 --out "$F"
check "rope scaling on learned"  "--rope-scaling pi applies to --pos rope, not to --pos learned" "$ORDO" train "${tiny[@]}" --rope-scaling pi --rope-factor 2 --out "$F"
check "rope scaling of factor 1" "--rope-scaling yarn with a factor of --context 16 / 16 (--rope-orig-context) = 1 changes nothing" "$ORDO" train "${tiny[@]}" --pos rope --rope-scaling yarn --out "$F"
check "ntk at head size 2"       "--rope-scaling ntk needs a head size of at least 4" "$ORDO" train "${tiny[@]}" --pos rope --heads 8 --rope-scaling ntk --rope-factor 2 --out "$F"
check "rope orig context < 0"    "--rope-orig-context is -1, expected 0.." "$ORDO" train "${tiny[@]}" --pos rope --rope-scaling yarn --rope-orig-context -1 --out "$F"
check "rope factor of wrong type" "\"rope-factor\" must be a finite number" "$ORDO" train --config data/ropef.json --out "$F"
check "init record malformed"    "\"init_from\" must be an object" "$ORDO" train --config data/initrec.json --out "$F"
check "unknown extend-pos"       "unknown --extend-pos value 'cubic' (expected interpolate, fresh or copy)" "$ORDO" train "${tiny[@]}" --extend-pos cubic --out "$F"
check "init from a run with no checkpoint" "runs/empty: no checkpoint (ckpt-<step>.safetensors) in the run" "$ORDO" train "${tiny[@]}" --init runs/empty --out "$F"
check "init of other heads"      "has heads 2 (metadata \"NH\") but this run --heads 4" "$ORDO" train "${tiny[@]}" --pos rope --heads 4 --init runs/rope --out "$F"
check "resume with a scaling"    "--rope-scaling is \"pi\" but the checkpoint was trained with \"none\"" "$ORDO" train --resume "$R" --rope-scaling pi --rope-factor 2
check "eval scaling on learned"  "--rope-scaling yarn applies to --pos rope, but the run has --pos learned" "$ORDO" eval "$G" --rope-scaling yarn --rope-factor 4
check "eval factor alone"        "--rope-factor goes with --rope-scaling" "$ORDO" eval "$R" --rope-factor 4
check "eval unknown scaling"     "--rope-scaling: unknown rope scaling 'dynamic'" "$ORDO" eval "$R" --rope-scaling dynamic
check "eval scaling of factor 1" "which changes nothing; give --rope-factor" "$ORDO" eval "$R" --rope-scaling pi
check "eval factor with none"    "--rope-factor 2 has no effect with --rope-scaling none" "$ORDO" eval "$R" --rope-scaling none --rope-factor 2
# --- partial rotary, head subsets, the scale on the absolute positions (tiny: hs 8)
check "rope fraction 0"          "--rope-fraction is 0, expected 0 < f <= 1" "$ORDO" train "${tiny[@]}" --pos rope --rope-fraction 0 --out "$F"
check "rope fraction 1.5"        "--rope-fraction is 1.5, expected 0 < f <= 1" "$ORDO" train "${tiny[@]}" --pos rope --rope-fraction 1.5 --out "$F"
check "rope fraction of 0 dims"  "--rope-fraction 0.1 of a head of 8 dims rotates 2*round(0.1*8/2) = 0 dims; expected a fraction of at least 0.125" "$ORDO" train "${tiny[@]}" --pos rope --rope-fraction 0.1 --out "$F"
check "rope fraction on alibi"   "--rope-fraction 0.5 applies to --pos rope, not to --pos alibi" "$ORDO" train "${tiny[@]}" --pos alibi --rope-fraction 0.5 --out "$F"
check "ntk on 2 rotated dims"    "--rope-scaling ntk needs a head size of at least 4 rotated dims" "$ORDO" train "${tiny[@]}" --pos rope --rope-fraction 0.25 --rope-scaling ntk --rope-factor 2 --out "$F"
check "alibi heads > heads"      "--alibi-heads is 3, expected 1..--heads 2 (0 = all)" "$ORDO" train "${tiny[@]}" --pos alibi --alibi-heads 3 --out "$F"
check "alibi heads with rope"    "--alibi-heads 1 applies to --pos alibi, not to --pos rope" "$ORDO" train "${tiny[@]}" --pos rope --alibi-heads 1 --out "$F"
check "dpb dim with rope"        "--dpb-dim 8 applies to --pos dpb, not to --pos rope" "$ORDO" train "${tiny[@]}" --pos rope --dpb-dim 8 --out "$F"
check "dpb depth 0"              "--dpb-depth is 0, expected 1..8" "$ORDO" train "${tiny[@]}" --pos dpb --dpb-depth 0 --out "$F"
check "rope heads < 0"           "--rope-heads is -1, expected 1..--heads 2 (0 = all)" "$ORDO" train "${tiny[@]}" --pos rope --rope-heads -1 --out "$F"
check "rope heads with xpos"     "--rope-heads 1 applies to --pos rope, not to --pos xpos" "$ORDO" train "${tiny[@]}" --pos xpos --rope-heads 1 --out "$F"
check "pos scale malformed"      "--pos-scale is 'fixed:', expected fixed:X, learned or learned:INIT with X and INIT numbers in (0, 1e4]" "$ORDO" train "${tiny[@]}" --pos-scale fixed: --out "$F"
check "pos scale unknown form"   "--pos-scale is 'scaled', expected fixed:X, learned or learned:INIT" "$ORDO" train "${tiny[@]}" --pos-scale scaled --out "$F"
check "pos scale negative"       "--pos-scale is 'learned:-1', expected" "$ORDO" train "${tiny[@]}" --pos-scale learned:-1 --out "$F"
check "pos scale with rope"      "--pos-scale learned applies to the absolute schemes (--pos learned or sinusoidal), not to --pos rope" "$ORDO" train "${tiny[@]}" --pos rope --pos-scale learned --out "$F"
check "resume with a rope fraction" "--rope-fraction is 0.5 but the checkpoint was trained with 1" "$ORDO" train --resume "$R" --rope-fraction 0.5
check "resume with a pos scale"  "--pos-scale is \"fixed:2\" but the checkpoint was trained with null" "$ORDO" train --resume "$G" --pos-scale fixed:2
# --- --pos-random N (randomized positions): N below the context (for an absolute and a relative
# scheme), a negative N, the schemes without positions to draw (none; fox, whose bias comes
# from the text), a resume that changes it (from 0, and from a relative run's 64)
check "pos random below context" "--pos-random 8 is below --context 16: each training sequence takes 16 distinct positions of [0, 8)" "$ORDO" train "${tiny[@]}" --pos learned --pos-random 8 --out "$F"
check "pos random below context, t5" "--pos-random 15 is below --context 16" "$ORDO" train "${tiny[@]}" --pos t5 --pos-random 15 --out "$F"
check "pos random negative"      "--pos-random is -1, expected --context..1048576 (0 = off)" "$ORDO" train "${tiny[@]}" --pos rope --pos-random -1 --out "$F"
check "pos random with none"     "--pos-random 64 does not apply to --pos none (it has no positions to draw); it applies to --pos learned, sinusoidal, rope, alibi, t5, fire, kerple, xpos, kerple-power, dpb" "$ORDO" train "${tiny[@]}" --pos none --pos-random 64 --out "$F"
check "pos random with fox"      "--pos-random 64 does not apply to --pos fox (its bias comes from the text's forget gates, used with no other positions)" "$ORDO" train "${tiny[@]}" --pos fox --pos-random 64 --out "$F"
"$ORDO" train "${tiny[@]}" --pos t5 --pos-random 64 --out "$dir/runs/t5rand" > /dev/null 2>&1 || bad "fixture run: t5 with --pos-random 64"
check "resume t5 with another N" "--pos-random is 128 but the checkpoint was trained with 64" "$ORDO" train --resume "$dir/runs/t5rand" --pos-random 128
check "resume with pos random"   "--pos-random is 64 but the checkpoint was trained with 0" "$ORDO" train --resume "$R" --pos-random 64
# --- the position schemes fire, kerple, xpos, kerple-power: a misspelt name, weights
# of another scheme or head count given to --init, a run resumed as another of the new schemes
"$ORDO" train "${tiny[@]}" --pos fire --out "$dir/runs/fire" > /dev/null 2>&1 || bad "fixture run (fire)"
check "scheme name misspelt"     "unknown position scheme 'kerple_power' (expected none, learned, sinusoidal, rope, alibi, t5, fire, kerple, xpos, kerple-power, fox, dpb" "$ORDO" train --pos kerple_power --out "$F"
check "init of rope into fire"   "was trained with --pos rope but this run has --pos fire" "$ORDO" train "${tiny[@]}" --pos fire --init runs/rope/ckpt-4.safetensors --out "$F"
check "init of fire into kerple" "was trained with --pos fire but this run has --pos kerple"       "$ORDO" train "${tiny[@]}" --pos kerple --init runs/fire/ckpt-4.safetensors --out "$F"
check "init of fire, other heads" "has heads 2 (metadata \"NH\") but this run --heads 4" "$ORDO" train "${tiny[@]}" --pos fire --heads 4 --init runs/fire/ckpt-4.safetensors --out "$F"
check "resume of fire as kerple" "--pos is \"kerple\" but the checkpoint was trained with \"fire\"" "$ORDO" train --resume runs/fire --pos kerple
check "xpos with an odd head size" "--pos xpos needs an even head size, but d-model/heads = 18/2 = 9" "$ORDO" train "${tiny[@]}" --pos xpos --d-model 18 --out "$F"
# --- fox, the forget gate: weights of another scheme given to --init, a fire run resumed as
# fox, and the other schemes' options, which fox (a scheme used with no other positions) refuses
"$ORDO" train "${tiny[@]}" --pos fox --out "$dir/runs/fox" > /dev/null 2>&1 || bad "fixture run (fox)"
check "init of fire into fox"    "was trained with --pos fire but this run has --pos fox" "$ORDO" train "${tiny[@]}" --pos fox --init runs/fire/ckpt-4.safetensors --out "$F"
check "init of fox into fire"    "was trained with --pos fox but this run has --pos fire" "$ORDO" train "${tiny[@]}" --pos fire --init runs/fox/ckpt-4.safetensors --out "$F"
check "resume of fire as fox"    "--pos is \"fox\" but the checkpoint was trained with \"fire\"" "$ORDO" train --resume runs/fire --pos fox
check "rope fraction on fox"     "--rope-fraction 0.5 applies to --pos rope, not to --pos fox" "$ORDO" train "${tiny[@]}" --pos fox --rope-fraction 0.5 --out "$F"
# --fox-gate-bias: past its range, not a number, with another scheme, changed on resume
check "fox gate bias 31"         "--fox-gate-bias is 31, expected -30..30" "$ORDO" train "${tiny[@]}" --pos fox --fox-gate-bias 31 --out "$F"
check "fox gate bias nan"        "--fox-gate-bias: 'nan' is not a finite number" "$ORDO" train "${tiny[@]}" --pos fox --fox-gate-bias nan --out "$F"
check "fox gate bias a word"     "--fox-gate-bias" "$ORDO" train "${tiny[@]}" --pos fox --fox-gate-bias high --out "$F"
check "fox gate bias on alibi"   "--fox-gate-bias 5 applies to --pos fox, not to --pos alibi" "$ORDO" train "${tiny[@]}" --pos alibi --fox-gate-bias 5 --out "$F"
check "resume with a gate bias"  "--fox-gate-bias is 5.0 but the checkpoint was trained with 0.0" "$ORDO" train --resume runs/fox --fox-gate-bias 5
check "rope scaling on fox"      "--rope-scaling yarn applies to --pos rope, not to --pos fox" "$ORDO" train "${tiny[@]}" --pos fox --rope-scaling yarn --rope-factor 4 --out "$F"
check "alibi heads on fox"       "--alibi-heads 1 applies to --pos alibi, not to --pos fox" "$ORDO" train "${tiny[@]}" --pos fox --alibi-heads 1 --out "$F"
check "pos scale on fox"         "--pos-scale learned applies to the absolute schemes (--pos learned or sinusoidal), not to --pos fox" "$ORDO" train "${tiny[@]}" --pos fox --pos-scale learned --out "$F"
check "dpb dim on fox"          "--dpb-dim 8 applies to --pos dpb, not to --pos fox" "$ORDO" train "${tiny[@]}" --pos fox --dpb-dim 8 --out "$F"
check "eval extend-pos on fox"   "--extend-pos interpolate grows a learned position table, but the run has --pos fox" "$ORDO" eval runs/fox --context 32 --extend-pos interpolate
# --- cope, contextual positions: --cope-max out of range (0 is not its default's spelling: leave it
# out), given to another scheme, changed on resume; the options and weights of other schemes
"$ORDO" train "${tiny[@]}" --pos cope --out "$dir/runs/cope" > /dev/null 2>&1 || bad "fixture run (cope)"
check "cope max 0"               "--cope-max is 0, expected 2..65536 (default: --context + 1)" "$ORDO" train "${tiny[@]}" --pos cope --cope-max 0 --out "$F"
check "cope max negative"        "--cope-max is -3, expected 2..65536" "$ORDO" train "${tiny[@]}" --pos cope --cope-max -3 --out "$F"
check "cope max too big"         "--cope-max is 65537, expected 2..65536" "$ORDO" train "${tiny[@]}" --pos cope --cope-max 65537 --out "$F"
# one position: every count gives the same embedding, no position signal (it was accepted)
check "cope max 1"               "--cope-max is 1, expected 2..65536" "$ORDO" train "${tiny[@]}" --pos cope --cope-max 1 --out "$F"
check "cope max not a number"    "--cope-max" "$ORDO" train "${tiny[@]}" --pos cope --cope-max many --out "$F"
check "cope max with rope"       "--cope-max 8 applies to --pos cope, not to --pos rope" "$ORDO" train "${tiny[@]}" --pos rope --cope-max 8 --out "$F"
check "cope default past limit"  "--pos cope takes --context + 1 = 65537 positions by default, past its limit 65536: give --cope-max" "$ORDO" train "${tiny[@]}" --pos cope --context 65536 --out "$F"
# --- t5's --t5-max-distance: out of range, or with another scheme
check "t5 max distance 16"       "--t5-max-distance is 16, expected 17..1048576" "$ORDO" train "${tiny[@]}" --pos t5 --t5-max-distance 16 --out "$F"
check "t5 max distance on alibi" "--t5-max-distance 64 applies to --pos t5, not to --pos alibi" "$ORDO" train "${tiny[@]}" --pos alibi --t5-max-distance 64 --out "$F"
check "resume with a cope max"   "--cope-max is 8 but the checkpoint was trained with 0 (the default, --context + 1 = 17)" "$ORDO" train --resume runs/cope --cope-max 8
check "pos random with cope"     "--pos-random 64 does not apply to --pos cope (its positions are counts of gated keys, used with no other positions); it applies to --pos learned, sinusoidal, rope, alibi" "$ORDO" train "${tiny[@]}" --pos cope --pos-random 64 --out "$F"
check "rope fraction on cope"    "--rope-fraction 0.5 applies to --pos rope, not to --pos cope" "$ORDO" train "${tiny[@]}" --pos cope --rope-fraction 0.5 --out "$F"
check "init of fox into cope"    "was trained with --pos fox but this run has --pos cope" "$ORDO" train "${tiny[@]}" --pos cope --init runs/fox/ckpt-4.safetensors --out "$F"
check "export of cope"           "--pos cope cannot be exported as Hugging Face GPT-2: it adds contextual positions to the attention scores" "$ORDO" export runs/cope --hf "$F"

# --- eval past a learned table (--extend-pos): a scheme without a table, an unknown method
# (--save of its scores is not refused: it is a record of its own, extend-<method>, which
# test_context_extension checks)
check "eval extend-pos on rope"  "--extend-pos interpolate grows a learned position table, but the run has --pos rope (no table to grow; --rope-scaling scales its rotation)" "$ORDO" eval "$R" --context 32 --extend-pos interpolate
check "eval extend-pos unknown"  "unknown --extend-pos value 'cubic' (expected interpolate, fresh or copy)" "$ORDO" eval "$G" --context 32 --extend-pos cubic
# --- --task passkey: the key's digits, a context too short for an example,
# eval's depth grid (on a passkey run and on any run: parsed before the run is read)
check "passkey digits 0"         "--passkey-digits is 0, expected 1..20" "$ORDO" train --task passkey --tokenizer byte --passkey-digits 0 --out "$F"
check "passkey digits 21"        "--passkey-digits is 21, expected 1..20" "$ORDO" train --task passkey --tokenizer byte --passkey-digits 21 --out "$F"
check "passkey digits word"      "--passkey-digits" "$ORDO" train --task passkey --tokenizer byte --passkey-digits five --out "$F"
check "passkey context too short" "--context 64 is shorter than the shortest example (103 tokens for --passkey-digits 5)" "$ORDO" train --task passkey --tokenizer byte --context 64 --out "$F"
check "passkey depth past 1"     "--depths '0,1.5': expected a comma-separated list of depths in 0..1" "$ORDO" eval "$G" --depths 0,1.5
check "passkey depth not a number" "--depths 'deep': expected a comma-separated list of depths in 0..1" "$ORDO" eval "$G" --depths deep
check "passkey depth empty item" "--depths '0,,1': expected" "$ORDO" eval "$G" --depths 0,,1
finish
